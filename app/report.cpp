// report.cpp — see report.hpp.
#include "app/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tensor/error.hpp"

namespace attnlab::lab {

Table::Table(std::vector<Column> columns, std::string indent) : columns_(std::move(columns)), indent_(std::move(indent)) {
    for (Column& c : columns_) c.width = std::max(c.width, static_cast<int>(c.header.size()));
}

void Table::print_header() const {
    std::string s = indent_;
    for (const Column& c : columns_)
        if (c.printed) s += (s.size() > indent_.size() ? " " : "") + std::string(c.width - c.header.size(), ' ') + c.header;
    std::printf("%s\n", s.c_str());
}

std::string Table::line(const std::vector<Json>& values) const {
    if (values.size() != columns_.size())
        throw ValueError("Table::row: " + std::to_string(values.size()) + " values for " +
                         std::to_string(columns_.size()) + " columns");
    std::string s = indent_;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        const Column& c = columns_[i];
        if (!c.printed) continue;
        char cell[64];
        const Json& v = values[i];
        if (v.is_string())
            std::snprintf(cell, sizeof cell, "%*s", c.width, v.as_string().c_str());
        else if (v.is_bool())
            std::snprintf(cell, sizeof cell, "%*s", c.width, v.as_bool() ? "yes" : "no");
        else if (c.decimals < 0)
            std::snprintf(cell, sizeof cell, "%*lld", c.width, static_cast<long long>(v.as_int64()));
        else
            std::snprintf(cell, sizeof cell, c.scientific ? "%*.*e" : "%*.*f", c.width, c.decimals, v.as_double());
        s += (s.size() > indent_.size() ? " " : "") + std::string(cell);
    }
    return s;
}

void Table::row(const std::vector<Json>& values) {
    std::printf("%s\n", line(values).c_str());
    Json r = Json::object();
    for (std::size_t i = 0; i < columns_.size(); ++i) r[columns_[i].key] = values[i];
    rows_.push_back(std::move(r));
}

Json Table::json_by(const std::string& key) const {
    Json out = Json::object();
    for (const Json& r : rows_.as_array()) {
        Json rest = Json::object();
        for (const auto& [k, v] : r.as_object())
            if (k != key) rest[k] = v;
        const Json& name = r.at(key);
        out[name.is_string() ? name.as_string() : std::to_string(name.as_int64())] = std::move(rest);
    }
    return out;
}

std::vector<double> Table::column(const std::string& key, const Filter& keep) const {
    std::vector<double> out;
    for (const Json& r : rows_.as_array())
        if (!keep || keep(r)) out.push_back(r.at(key).as_double());
    return out;
}

plots::Series Table::series(const std::string& x, const std::string& y, plots::Series style, const Filter& keep) const {
    style.x = column(x, keep), style.y = column(y, keep);
    return style;
}

void headline(Json& metrics, const std::string& key, const Json& value, const std::string& caption, int decimals) {
    if (!value.is_number() || !std::isfinite(value.as_double()))
        throw ValueError("headline '" + key + "': the value is " + (value.is_number() ? "not finite" : std::string("a ") + json_type_name(value.type())) +
                         ", not a number");
    Json h = Json::object();  // built before metrics grows: value may be one of its members
    h["value"] = value, h["caption"] = caption, h["decimals"] = decimals;
    Json& all = metrics["headlines"];
    if (all.is_null()) all = Json::object();
    if (all.find(key)) throw ValueError("headline '" + key + "' is declared twice");
    all[key] = std::move(h);
}

}  // namespace attnlab::lab
