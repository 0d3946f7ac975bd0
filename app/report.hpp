// report.hpp — one definition per result: a table whose columns are declared once, so
// that each row is printed, recorded in metrics.json and drawn from the same values.
//
//   lab::Table t({{"d_k", "d_k", 5, -1}, {"score_variance", "Var(score)", 10, 3}});
//   t.print_header();                       //   d_k Var(score)
//   t.row({8, 7.93});                       //     8      7.930   (printed and kept)
//   metrics["cells"] = t.json();            // [{"d_k": 8, "score_variance": 7.93}]
//   plots::Series s = t.series("d_k", "score_variance", {.name = "unscaled"});
//
// A column's key is its name in metrics.json; nothing else spells it, so a test that
// wants the keys reads them from what was recorded. Values are Json: numbers (printed
// with the column's decimals, or as whole numbers when decimals < 0), strings, booleans.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "plots/line_chart.hpp"
#include "io/json.hpp"

namespace attnlab::lab {

struct Column {
    std::string key;     // in metrics.json
    std::string header;  // in the printout
    int width = 9;       // printed width (at least the header's)
    int decimals = 3;    // < 0: a whole number or a string
    bool printed = true; // false: recorded and drawn, not printed (a list, say)
    bool scientific = false;  // printed as 1.23e-04 (decimals digits after the point): values spanning decades
};

class Table {
public:
    explicit Table(std::vector<Column> columns, std::string indent = "");

    void print_header() const;
    // One row, its values in the columns' order: printed, then kept.
    void row(const std::vector<Json>& values);
    // Rows kept only where keep(row) is true (e.g. one series per setting).
    using Filter = std::function<bool(const Json& row)>;

    const Json& json() const { return rows_; }  // [{key: value, ...}, ...]
    // {row[key]: the row without key, ...}: rows named by one column (a string or a whole number).
    Json json_by(const std::string& key) const;
    std::vector<double> column(const std::string& key, const Filter& keep = {}) const;
    // A line through the rows: x and y are column keys; style gives name, colour, markers.
    plots::Series series(const std::string& x, const std::string& y, plots::Series style, const Filter& keep = {}) const;
    std::string line(const std::vector<Json>& values) const;  // how row() prints them

private:
    std::vector<Column> columns_;
    std::string indent_;
    Json rows_ = Json::array();
};

// A headline: one number a phase is about, declared where the phase computes it. It goes
// into metrics["headlines"][key] = {"value", "caption", "decimals"}, in declaration order,
// and the gallery shows each phase's headlines from that object alone, so a headline and
// the number its table records are one value:
//   lab::headline(p.m, "bayes_floor", floor, "Bayes floor");   // 3 decimals unless told
// A key declared twice, or a value that is not a finite number, is a ValueError naming it.
void headline(Json& metrics, const std::string& key, const Json& value, const std::string& caption, int decimals = 3);

}  // namespace attnlab::lab
