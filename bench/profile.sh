#!/bin/sh
# profile.sh — where one workload's time goes, by kind of work: "what would make it faster?"
#
#   bench/profile.sh [--only REGEX] [--threads N] [--bin PATH] [--top N]
#
# Runs bench_workloads under `perf record -e cpu-clock` (a software clock: virtual machines
# often have no hardware counters) and adds up perf's self time per group of functions:
# the GEMM micro-kernels and packing, the flash attention kernel with its tiles, exp and
# masks, GELU, LayerNorm, allocation and reference counts, setting the model up (random
# weights, positional tables: not timed by the bench, but sampled), the OS kernel, and the
# rest (elementwise ops, shapes and views, dispatch). Then the N hottest functions.
# Shares are percent of all samples. Needs perf (Debian: linux-perf).
# Defaults: --only 'generate_256$' (W6), --threads 1, --bin build/bench_workloads, --top 12.
set -eu
[ $# -ge 1 ] && case "$1" in -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
only='generate_256$'; threads=1; bin=build/bench_workloads; top=12
while [ $# -gt 0 ]; do
    case "$1" in --only|--threads|--bin|--top) [ $# -ge 2 ] || { echo "profile.sh: $1 needs a value (see --help)" >&2; exit 2; } ;; esac
    case "$1" in
        --only) only="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        --top) top="$2"; shift 2 ;;
        *) echo "profile.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
    esac
done
for n in "$threads" "$top"; do
    case "$n" in ''|*[!0-9]*|0) echo "profile.sh: --threads and --top take positive integers, got '$n'" >&2; exit 2 ;; esac
done
[ -x "$bin" ] || { echo "profile.sh: '$bin' is not an executable file (make build/bench_workloads)" >&2; exit 2; }
command -v perf > /dev/null || { echo "profile.sh: needs perf (Debian: apt-get install linux-perf)" >&2; exit 2; }

data=$(mktemp); trap 'rm -f "$data"' EXIT
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
