#!/usr/bin/env bash
# check_layers.sh — fails when a file includes a header from a layer above its own.
# The layers are docs/layout.md's map ("Which folder may include which"); nothing includes
# upward, so a folder can be read, built and tested with only the folders below it:
#   tensor/ autograd/                 the bottom: one layer (an op records its backward node)
#   io/  assets/                      files: read and written; compiled in at build time
#   nn/  data/  plots/                side by side: none includes another
#   training/  explorer/              the training loop and run record; the explorer page
#   app/                              command line and report (includes training/)
#   analyses/                         (includes app/, training/, explorer/)
#   experiments/                      (includes analyses/)
#   phases/ tools/ bench/ tests/      programs and tests: may include anything
# Looks at every *.cpp, *.hpp and *.h in the library folders and reads their
# #include "folder/..." lines (system headers and same-folder headers are always fine).
# Prints each offending include as path:line: includes folder/header (folder may include: ...)
# and exits 1 if there is any, else exits 0.
#   tools/check_layers.sh            # the repository this script is in
#   tools/check_layers.sh ROOT       # another tree (tests/tools/test_check_layers.cpp)
set -uo pipefail
cd "${1:-$(dirname "$0")/..}" || exit 2

declare -A may=(
    [tensor]="autograd"
    [autograd]="tensor"
    [io]="tensor autograd"
    [assets]="tensor autograd"
    [nn]="io assets tensor autograd"
    [data]="io assets tensor autograd"
    [plots]="io assets tensor autograd"
    [training]="nn data plots io assets tensor autograd"
    [explorer]="nn data plots io assets tensor autograd"
    [app]="training nn data plots io assets tensor autograd"
    [analyses]="app training explorer nn data plots io assets tensor autograd"
    [experiments]="analyses app training explorer nn data plots io assets tensor autograd"
)

folders=()
for d in "${!may[@]}"; do [ -d "$d" ] && folders+=("$d"); done
files=()
[ "${#folders[@]}" -gt 0 ] && mapfile -d '' files < <(find "${folders[@]}" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print0 | sort -z)
[ "${#files[@]}" -gt 0 ] || { echo "check_layers: no source found under $(pwd)"; exit 2; }

bad=0
for f in "${files[@]}"; do
    own=${f%%/*}
    while IFS=: read -r line header; do
        dir=${header%%/*}
        [ "$dir" = "$own" ] && continue
        case " ${may[$own]} " in *" $dir "*) continue ;; esac
        echo "$f:$line: includes $header (${own}/ may include: ${may[$own]})"
        bad=1
    done < <(grep -noP '^\s*#\s*include\s*"\K[A-Za-z0-9_]+/[^"]+' "$f")
done
if [ "$bad" -ne 0 ]; then
    echo "check_layers: the includes above reach a layer above their file's (docs/layout.md);" \
         "move the code down, or the include up"
    exit 1
fi
echo "check_layers: ${#files[@]} files, every include within its layer or below"
