// table.hpp — a small table as a figure (summary numbers next to the charts).
//
// A header row on a tinted band with a rule under it, then the body rows with
// light zebra striping. Columns are as wide as their widest cell; cells that
// parse as numbers are right-aligned so their digits line up, text is left-
// aligned, unless the options say otherwise. Left out: merged cells, wrapping,
// per-cell colours.
#pragma once
#include <string>
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

enum class ColumnAlign { automatic, left, center, right };

struct TableOptions {
    std::string title{};
    std::vector<ColumnAlign> align{};  // one per column; empty = all automatic
    bool zebra = true;
};

// Throws ValueError for an empty header, ShapeError if a row's cell count differs from the header's.
Figure table_figure(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                    const TableOptions& options = {});

}  // namespace attnlab::plots
