#!/usr/bin/env bash
# check_reading_path.sh — the reading path (docs/read-the-source.md) stays readable.
#
# Reads the path's files from the page's headings, "### N. `file` — ... (budget L lines)",
# and fails (exit 1, one line per problem) if there are more than 12, if one is missing or
# longer than its budget, or if one holds fast machinery: a fast kernel's header (gemm,
# the thread pool, vector math, softmax rows, packed weights, the allocator, flash
# attention's tiles), vector intrinsics or vector types, parallel_for or threads, weight
# packing. A fast kernel is reached from a file on the path through its one dispatch
# header (tensor/matmul_fast.hpp, nn/flash_attention.hpp, ...), which declares the entry
# point and nothing else, so those may be included.
#
#   tools/check_reading_path.sh [PAGE [ROOT]]    (defaults: docs/read-the-source.md, .)
set -u
page=${1:-docs/read-the-source.md}
root=${2:-.}
[ -f "$page" ] || { echo "check_reading_path: no page '$page'" >&2; exit 2; }

# "### 4. `tensor/matmul.cpp` — ... (budget 300 lines)" -> "tensor/matmul.cpp 300"
entries=$(sed -nE 's/^### [0-9]+\. `([^`]+)`.*\(budget ([0-9]+) lines\).*$/\1 \2/p' "$page")
count=$(printf '%s\n' "$entries" | grep -c .)
fail=0
problem() { echo "reading path: $1"; fail=1; }
[ "$count" -ge 1 ] || problem "$page lists no file (headings '### N. \`file\` — what (budget L lines)')"
[ "$count" -le 12 ] || problem "$page lists $count files; the path has at most 12"

# Machinery, matched on code lines (comments may name it: "fast path: see X").
headers='#include[[:space:]]*[<"](tensor/(gemm|gemm_kernel|parallel|vec_math|softmax_row|row_sum|packed_weights|allocator)\.hpp|nn/(flash_attention_tile|fused_math)\.hpp|immintrin\.h|x86intrin\.h|arm_neon\.h|thread)[>"]'
machinery='_mm[0-9]*_[a-z]|__m(128|256|512)|vector_size|__builtin_ia32|parallel_for|std::thread|packed_b_for|__restrict'

while read -r file budget; do
    [ -n "$file" ] || continue
    path="$root/$file"
    if [ ! -f "$path" ]; then problem "$file: no such file"; continue; fi
    lines=$(wc -l < "$path")
    [ "$lines" -le "$budget" ] || problem "$file: $lines lines, over its budget of $budget"
    code=$(grep -nvE '^[[:space:]]*//' "$path" | sed -E 's@[[:space:]]//.*$@@')
    if hits=$(printf '%s\n' "$code" | grep -E "$headers"); then
        problem "$file includes a fast kernel's header: $(echo "$hits" | head -1)"
    fi
    if hits=$(printf '%s\n' "$code" | grep -E "$machinery"); then
        problem "$file uses fast machinery: $(echo "$hits" | head -1)"
    fi
    echo "  $file: $lines lines (budget $budget)"
done <<< "$entries"

[ "$fail" = 0 ] && echo "reading path: $count files, each within its budget, none with fast machinery"
exit "$fail"
