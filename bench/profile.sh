#!/bin/sh
# profile.sh — where one workload's time goes, by kind of work: "what would make it faster?"
#
#   bench/profile.sh [--only REGEX] [--threads N] [--bin PATH] [--top N] [--stacks]
#
# Runs bench_workloads under `perf record -e cpu-clock` (a software clock: virtual machines
# often have no hardware counters) and adds up perf's self time per group of functions:
# the GEMM micro-kernels and packing, the flash attention kernel with its tiles, exp and
# masks, GELU, LayerNorm, allocation and reference counts, setting the model up (random
# weights, positional tables: not timed by the bench, but sampled), the OS kernel, and the
# rest (elementwise ops, shapes and views, dispatch). Then the N hottest functions.
# Shares are percent of all samples. Needs perf (Debian: linux-perf).
# --stacks records call stacks too (perf's dwarf unwinding: slower, larger) and counts only
# the samples taken inside the bench's timed calls, in the finer groups of W7's table in
# docs/performance.md: a shared helper (a transpose, a memset) counts for its caller's group,
# and on several threads the pool's waiting and spinning is a group of its own. Then the N
# hottest functions of the group "the rest".
# Defaults: --only 'generate_256$' (W6), --threads 1, --bin build/bench_workloads, --top 12.
set -eu
[ $# -ge 1 ] && case "$1" in -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
only='generate_256$'; threads=1; bin=build/bench_workloads; top=12; stacks=0
while [ $# -gt 0 ]; do
    case "$1" in --only|--threads|--bin|--top) [ $# -ge 2 ] || { echo "profile.sh: $1 needs a value (see --help)" >&2; exit 2; } ;; esac
    case "$1" in
        --only) only="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        --top) top="$2"; shift 2 ;;
        --stacks) stacks=1; shift ;;
        *) echo "profile.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for n in "$threads" "$top"; do
    case "$n" in ''|*[!0-9]*|0) echo "profile.sh: --threads and --top take positive integers, got '$n'" >&2; exit 2 ;; esac
done
[ -x "$bin" ] || { echo "profile.sh: '$bin' is not an executable file (make build/bench_workloads)" >&2; exit 2; }
command -v perf > /dev/null || { echo "profile.sh: needs perf (Debian: apt-get install linux-perf)" >&2; exit 2; }

data=$(mktemp); trap 'rm -f "$data"' EXIT
if [ "$stacks" = 1 ]; then
    perf record -q -e cpu-clock -F 1000 --call-graph dwarf,16384 -o "$data" "$bin" --threads "$threads" --only "$only" >&2
    echo "perf record -e cpu-clock --call-graph dwarf $bin --threads $threads --only '$only': timed samples by group, % of them"
    # perf script prints each sample as a line naming the program, then one line per frame
    # (address, function), the sampled function first; kernel addresses start ffffffff.
    perf script -i "$data" -F comm,ip,sym 2> /dev/null | awk -v top="$top" '
    function group(leaf, kernel, attention, gemm, ce) {
        if (kernel) return "OS kernel (scheduler, page faults)"
        if (leaf ~ /micro_kernel/) return "GEMM micro-kernels"
        if (leaf == "attnlab::parallel_for" || leaf ~ /^std::thread::_State_impl.*Pool::start_workers|Pool::/) return "the pool: waiting for chunks, workers spinning"
        if (attention) return "fused attention forward + backward"
        if (leaf ~ /transpose_block|memset|memmove|memcpy/)
            return gemm && leaf ~ /transpose_block/ ? "GEMM packing and edge tiles" : "allocation, memset and copies"
        if (ce) return "cross-entropy"
        if (leaf ~ /pack_b|pack_a|blocked_serial|tile_mid_vector|gemm/) return "GEMM packing and edge tiles"
        if (leaf ~ /gelu/) return "GELU"
        if (leaf ~ /layer_norm|normalise_row|float_row_sum|add_row_to_column_sums/) return "LayerNorm forward + backward"
        if (leaf ~ /binary_map<attnlab::add\(/) return "residual adds"
        if (leaf ~ /adam|clip_grad|for_each_segment/) return "AdamW and the gradient clip"
        if (leaf ~ /sum_columns/) return "bias gradients (column sums)"
        if (leaf ~ /malloc|free|allocate|_storage|operator new|operator delete|_Sp_counted|release_|tcache|_int_/) return "allocation, memset and copies"
        return "the rest"
    }
    function flush(   i, timed, attention, gemm, ce, leaf, g) {
        if (n == 0) return
        for (i = 1; i <= n; i++) {
            if (frame[i] ~ /time_steps|steady_state|time_median|start_workers/) timed = 1  # a worker runs only the timed calls
            if (frame[i] ~ /flash_attention|backward_head|forward_rows/) attention = 1
            if (frame[i] ~ /gemm|pack_b|blocked_serial/) gemm = 1
            if (frame[i] ~ /cross_entropy/) ce = 1
        }
        if (timed) {
            for (i = 1; i <= n && leaf == ""; i++) if (frame[i] !~ /\(inlined\)$/) leaf = frame[i]
            g = group(leaf, in_kernel[1], attention, gemm, ce)
            share[g]++; total++
            if (g == "the rest") rest[substr(leaf, 1, 100)]++
        } else outside++
        n = 0
    }
    /^[^ \t]/ || /^[ \t]*$/ { flush(); next }
    { n++; in_kernel[n] = $1 ~ /^ffffffff/; $1 = ""; frame[n] = substr($0, 2) }
    END {
        flush()
        if (total == 0) { print "no samples inside the timed calls"; exit }
        for (g in share) printf "%6.2f%%  %s\n", 100 * share[g] / total, g | "sort -rn"
        close("sort -rn")
        printf "(%d samples inside the timed calls; %d outside them, the set-up, left out)\nthe rest, by function:\n", total, outside
        for (f in rest) printf "%6.2f%%  %s\n", 100 * rest[f] / total, f | "sort -rn | head -n " top
        close("sort -rn | head -n " top)
    }'
    exit 0
fi
perf record -q -e cpu-clock -o "$data" "$bin" --threads "$threads" --only "$only" >&2
echo "perf record -e cpu-clock $bin --threads $threads --only '$only': self time by group, % of samples"
perf report -i "$data" --no-children --sort sym --stdio 2> /dev/null | awk -v top="$top" '
/^ *[0-9.]+%/ {
    pct = $1; sub("%", "", pct); $1 = ""; sym = $0
    group = "the rest (elementwise ops, shapes and views, dispatch)"
    if (sym ~ /\[k\]/) group = "OS kernel"
    else if (sym ~ /micro_kernel|gemm|pack_|packed_|::tile<|blocked_serial|matmul/) group = "GEMM (micro-kernels, packing)"
    else if (sym ~ /flash|tile_kernel|tile_rows|tile_product|exp_shifted|row_max|mask_tile|Problem<|transpose<float>|__ieee754_log/) group = "attention (flash kernel)"
    else if (sym ~ /gelu/) group = "GELU"
    else if (sym ~ /layer_norm|normalise_row/) group = "LayerNorm"
    else if (sym ~ /malloc|free|allocate|_storage|operator new|operator delete|_Sp_counted|checked_nbytes/) group = "allocation, reference counts"
    else if (sym ~ /randn|Generator::|sincos|__sin|__cos/) group = "model set-up (not timed)"
    share[group] += pct
    if (++n <= top) hot[n] = sprintf("%6.2f%%  %s", pct, substr(sym, 1, 110))
}
END {
    for (g in share) printf "%6.2f%%  %s\n", share[g], g | "sort -rn"
    close("sort -rn")
    print "hottest functions:"
    for (i = 1; i <= n && i <= top; i++) print hot[i]
}'
