#!/usr/bin/env bash
# gdb_reading_path.sh — a debugger stepping into training lands on the reading path.
#
# Runs build/debug/phase1_single_head and a short `tinygpt train` under `gdb -batch`
# (Debian's gdb) with breakpoints on the path's attention, softmax backward and optimizer
# step (docs/read-the-source.md), and fails unless each program hits the ones it must:
# phase 1 attention; training all three. Each breakpoint prints one line with its caller
# and disables itself, so the programs then run at full (debug) speed.
# A debug build runs in reference mode (tensor/reference.hpp), which is what makes the
# breakpoints reachable: the fast kernels never call these functions.
#
#   make debug   (or: make MODE=debug build/debug/tinygpt build/debug/phase1_single_head)
#   tools/gdb_reading_path.sh [BUILD_DIR]         (default build/debug)
set -u
bin=${1:-build/debug}
command -v gdb > /dev/null || { echo "gdb_reading_path: gdb is not installed (apt-get install gdb)" >&2; exit 2; }
for p in tinygpt phase1_single_head; do
    [ -x "$bin/$p" ] || { echo "gdb_reading_path: no $bin/$p (make debug builds it)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/gdb_reading_path.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One breakpoint per function: on its first hit, print "HIT <label> <- <caller>", disable it, go on.
# (Breakpoint n is the n-th one set, so each disables itself by its number.)
breakpoints() {
    local label fn n=0
    while read -r label fn; do
        n=$((n + 1))
        cat <<GDB
break $fn
commands
silent
printf "HIT $label <- "
frame 1
disable $n
continue
end
GDB
    done
}
run_gdb() {  # run_gdb NAME "label fn" lines... -- program args...
    local name=$1; shift
    local specs=()
    while [ "$1" != "--" ]; do specs+=("$1"); shift; done
    shift
    { echo "set breakpoint pending on"; echo "set pagination off"; echo "set print frame-arguments none"
      printf '%s\n' "${specs[@]}" | breakpoints; echo "run"; } > "$work/$name.gdb"
    ATTNLAB_NUM_THREADS=2 gdb -batch -nx -x "$work/$name.gdb" --args "$@" > "$work/$name.log" 2>&1
    grep -A1 '^HIT ' "$work/$name.log" | grep -v '^--$'
}
expect() {  # expect NAME LABEL
    grep -q "^HIT $2 " "$work/$1.log" || { echo "gdb_reading_path: $1 never reached $2" >&2; tail -20 "$work/$1.log" >&2; fail=1; }
}
finished() {  # finished NAME: the program ran to its end, exit status 0
    grep -q '^\[Inferior 1 (process [0-9]*) exited normally\]' "$work/$1.log" ||
        { echo "gdb_reading_path: $1 did not exit normally" >&2; tail -20 "$work/$1.log" >&2; fail=1; }
}
fail=0
attention="attention attnlab::nn::scaled_dot_product_attention"
softmax="softmax_backward attnlab::softmax_backward"
adam="optimizer attnlab::nn::Adam::update"

echo "== tinygpt train (3 steps of a small TinyGPT: 1 layer, 2 heads, d_model 16)"
run_gdb train "$attention" "$softmax" "$adam" -- "$bin/tinygpt" train --steps 3 --warmup 1 --heads 2 --layers 1 \
    --eval-every 3 --d-model 16 --context 8 --batch 4 --out "$work/tinygpt.safetensors"
for what in attention softmax_backward optimizer; do expect train "$what"; done
finished train

echo "== phase1_single_head (on the model just trained)"
run_gdb phase1 "$attention" -- "$bin/phase1_single_head" --checkpoint "$work/tinygpt.safetensors" \
    --steps 2 --d-k 8 --out "$work/out"
expect phase1 attention
finished phase1

[ "$fail" = 0 ] && echo "gdb_reading_path: every breakpoint was hit"
exit "$fail"
