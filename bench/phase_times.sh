#!/usr/bin/env bash
# phase_times.sh — how long each phase program, and build/plots_demo, takes to run, for one
# or more build directories side by side in interleaved rounds: e.g. two commits, or one
# commit built two ways, to see what a compile-time saving costs the run. Prints every
# run, then per program and in all the median seconds of each build and its ratio to the
# first build's.
#
#   bench/phase_times.sh [--rounds 2] [BUILD_DIR ...]        # default: build
#   bench/phase_times.sh --rounds 3 /tmp/old/build build     # another clone's build beside this one
#
# Run it from the repository's top: the phases read their default checkpoints from
# out/checkpoints/ (make train writes them). Each program runs on one thread, as make all
# runs it, and writes into a temporary directory, not out/.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: bench/phase_times.sh [--rounds N] [BUILD_DIR ...]"; }
rounds=2 dirs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --rounds) [ $# -ge 2 ] || { usage >&2; exit 2; }; rounds=$2; shift 2 ;;
    -*) echo "phase_times.sh: unknown flag '$1'" >&2; usage >&2; exit 2 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "phase_times.sh: --rounds '$rounds': must be a whole number >= 1" >&2; exit 2; }
[ ${#dirs[@]} -gt 0 ] || dirs=(build)
programs=($(cd phases && ls phase*.cpp | sed 's/\.cpp$//') plots_demo)
for d in "${dirs[@]}"; do
  for p in "${programs[@]}"; do
    [ -x "$d/$p" ] || { echo "phase_times.sh: '$d/$p' is missing: build it first (make -j2 build)" >&2; exit 2; }
  done
done
for m in causal single_head multi_head; do
  [ -f "out/checkpoints/${m}_model.safetensors" ] ||
    { echo "phase_times.sh: out/checkpoints/${m}_model.safetensors is missing: run make train first" >&2; exit 2; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A runs  # "dir|program" -> seconds of each round
for ((round = 1; round <= rounds; round++)); do
  for d in "${dirs[@]}"; do
    for p in "${programs[@]}"; do
      start=$(date +%s%N)
      ATTNLAB_NUM_THREADS=1 "$d/$p" --out "$tmp/out" >"$tmp/log" 2>&1 || { tail -20 "$tmp/log"; echo "phase_times.sh: $d/$p failed" >&2; exit 1; }
      s=$(awk -v ns=$(( $(date +%s%N) - start )) 'BEGIN {printf "%.2f", ns / 1e9}')
      printf "round %d  %-28s %-24s %6s s\n" "$round" "$d" "$p" "$s"
      runs["$d|$p"]="${runs["$d|$p"]:-} $s"
    done
  done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
declare -A med  # "dir|program" -> median seconds; "dir|all" -> their sum
for d in "${dirs[@]}"; do
  med["$d|all"]=0
  for p in "${programs[@]}"; do
    med["$d|$p"]=$(median "${runs["$d|$p"]}")
    med["$d|all"]=$(awk -v a="${med["$d|all"]}" -v b="${med["$d|$p"]}" 'BEGIN {print a + b}')
  done
done
echo "median seconds (ratio to ${dirs[0]}):"
for p in "${programs[@]}" all; do
  line=$(printf "  %-24s" "$p")
  for d in "${dirs[@]}"; do
    line+=$(awk -v d="$d" -v m="${med["$d|$p"]}" -v f="${med["${dirs[0]}|$p"]}" 'BEGIN {printf "  %-22s %7.2f (%.2fx)", d, m, m / f}')
  done
  echo "$line"
done
