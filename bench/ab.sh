#!/bin/sh
# ab.sh — two builds of bench_workloads side by side: "did my change make it faster?"
#
#   bench/ab.sh OLD NEW [--rounds N] [--threads "1 2"] [--only REGEX]
#
# OLD, NEW: two bench_workloads binaries (e.g. a copy of build/bench_workloads saved before
# the change, and build/bench_workloads after it). Each round runs OLD then NEW at every
# thread count, so a noisy neighbour hurts both alike. Prints, per workload and thread count,
# the median over rounds of each run's median (ms) and OLD ÷ NEW (> 1: NEW is faster).
# Defaults: 5 rounds, 1 thread, W1 (toy_mha_fwd_bwd), W4 (toy_lm_train_step), W6 (generate_256).
set -eu
[ $# -ge 1 ] && case "$1" in -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -ge 2 ] || { echo "ab.sh: give two bench_workloads binaries, OLD and NEW (see --help)" >&2; exit 2; }
old="$1"; new="$2"; shift 2
rounds=5; threads=1; only='toy_mha_fwd_bwd$|toy_lm|generate_256'
while [ $# -gt 0 ]; do
    case "$1" in --rounds|--threads|--only) [ $# -ge 2 ] || { echo "ab.sh: $1 needs a value (see --help)" >&2; exit 2; } ;; esac
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        *) echo "ab.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$rounds" in ''|*[!0-9]*|0) echo "ab.sh: --rounds must be a positive integer, got '$rounds'" >&2; exit 2 ;; esac
for b in "$old" "$new"; do [ -x "$b" ] || { echo "ab.sh: '$b' is not an executable file" >&2; exit 2; }; done
for t in $threads; do
    case "$t" in ''|*[!0-9]*|0) echo "ab.sh: --threads must list positive integers, got '$t'" >&2; exit 2 ;; esac
done

raw=$(mktemp); trap 'rm -f "$raw"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
    for t in $threads; do
        for side in old new; do
            bin=$old; [ "$side" = new ] && bin=$new
            # bench_workloads prints "name: median ms (lo..hi) ..." per workload
            "$bin" --threads "$t" --only "$only" | awk -v s="$side" -v t="$t" '/^[A-Za-z0-9_]+: [0-9.]+ ms/ {sub(":", "", $1); print s, t, $1, $2}' >> "$raw"
        done
    done
    r=$((r + 1))
done
echo "$rounds round(s), OLD = $old, NEW = $new; medians over rounds in ms"
awk '
function median(list,   n, a, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ key = $3 "|" $2; v[$1 "|" key] = v[$1 "|" key] " " $4; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
END {
    print "| workload | threads | OLD | NEW | OLD / NEW |"
    print "|---|---|---|---|---|"
    for (i = 1; i <= k; i++) {
        split(order[i], p, "|"); o = median(v["old|" order[i]]); n = median(v["new|" order[i]])
        printf "| %s | %s | %.4g | %.4g | %.2fx |\n", p[1], p[2], o, n, (n > 0 ? o / n : 0)
    }
}' "$raw"
