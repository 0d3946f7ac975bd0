#!/bin/sh
# thread_scaling.sh — each workload at 1, 2, 4, ... threads, to see where more cores pay and
# where they cost (small ops that wait on a woken thread).
#
#   bench/thread_scaling.sh [--threads "1 2 4 8 16"] [--only REGEX] [--rounds N]
#
# Default --threads: 1, 2, 4, ... up to nproc. attnlab's programs default to one thread per
# physical core, at most 8 (tensor/thread_count.hpp): this table is where that cap comes from.
# Prints, per workload, the median over rounds of each run's median (ms),
# and each thread count's speed-up over 1 thread (> 1: faster). Needs only the compiler.
set -eu
cd "$(dirname "$0")/.."
n=$(nproc)
threads=""
t=1
while [ "$t" -le "$n" ]; do threads="$threads $t"; t=$((t * 2)); done
only='toy_mha_fwd_bwd$|toy_lm_train_step$|generate_256|nanogpt_cpu_train_step|attention_fwd_bwd_T(512|2048)$|fma_peak'
rounds=1
while [ $# -gt 0 ]; do
    case "$1" in
        --threads) threads="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "thread_scaling.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$rounds" in ''|*[!0-9]*|0) echo "thread_scaling.sh: --rounds needs a whole number >= 1, got '$rounds'" >&2; exit 2 ;; esac
for t in $threads; do
    case "$t" in ''|*[!0-9]*|0) echo "thread_scaling.sh: --threads needs whole numbers >= 1, got '$t'" >&2; exit 2 ;; esac
done
make --no-print-directory -j"$n" build/bench_workloads >&2
out=out/bench/thread_scaling
rm -rf "$out" && mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
    for t in $threads; do
        echo "round $r/$rounds: $t thread(s)" >&2
        build/bench_workloads --threads "$t" --only "$only" --json "$out/t${t}_r$r.json" >&2
    done
done
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
python3 - "$out" "$cpu" $threads <<'PY'
import glob, json, os, statistics, sys
out, cpu, threads = sys.argv[1], sys.argv[2], [int(t) for t in sys.argv[3:]]
med = {}
for t in threads:
    per = {}
    for path in glob.glob(os.path.join(out, f"t{t}_r*.json")):
        for r in json.load(open(path))["results"]:
            per.setdefault(r["name"], []).append(r["median_ms"])
    med[t] = {k: statistics.median(v) for k, v in per.items()}
print(f"CPU: {cpu}; median ms per call; (x) = speed-up over 1 thread")
print("| workload | " + " | ".join(f"{t} thr" for t in threads) + " |")
print("|---|" + "---|" * len(threads))
for name in med[threads[0]]:
    if name == "fma_peak":
        continue
    base = med[threads[0]][name]
    cells = [f"{med[t][name]:.4g} ({base / med[t][name]:.2f}x)" if name in med[t] else "-" for t in threads]
    print(f"| {name} | " + " | ".join(cells) + " |")
if "fma_peak" in med[threads[0]]:
    print(f"\none core's FMA peak (fma_peak): {1e3 / med[threads[0]]['fma_peak']:.0f} GFLOP/s")
PY
