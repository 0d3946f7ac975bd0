#!/usr/bin/env bash
# build_time.sh — how long `make <target>` takes from a clean clone, for one or more commits
# side by side: each round clones every commit afresh (interleaved, so a noisy neighbour slows
# both alike) and times the target with /usr/bin/time. Prints every run, then per commit the
# median wall time and its ratio to the first commit's. REV:VAR=VALUE passes one make
# variable to that run. --touch FILE then also times the rebuild after touching FILE (an edit).
#
#   bench/build_time.sh [--target all] [--rounds 2] REV[:VAR=VALUE] [...]
#   bench/build_time.sh main HEAD             # make all: main's tip, then this commit, twice
#   bench/build_time.sh --target build HEAD:UNITY_BATCH=1 HEAD   # one object per library file, or eight
#   bench/build_time.sh --target build --touch nn/attention.cpp HEAD
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: bench/build_time.sh [--target all|build|test] [--rounds N] [--touch FILE] REV[:VAR=VALUE] [...]"; }
target=all rounds=2 touch="" revs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --target) [ $# -ge 2 ] || { usage >&2; exit 2; }; target=$2; shift 2 ;;
    --rounds) [ $# -ge 2 ] || { usage >&2; exit 2; }; rounds=$2; shift 2 ;;
    --touch) [ $# -ge 2 ] || { usage >&2; exit 2; }; touch=$2; shift 2 ;;
    -*) echo "build_time.sh: unknown flag '$1'" >&2; usage >&2; exit 2 ;;
    *) revs+=("$1"); shift ;;
  esac
done
case "$target" in all|build|test) ;; *) echo "build_time.sh: --target '$target': must be all, build or test" >&2; exit 2 ;; esac
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "build_time.sh: --rounds '$rounds': must be a whole number >= 1" >&2; exit 2; }
[ ${#revs[@]} -gt 0 ] || { usage >&2; exit 2; }
[ -z "$touch" ] || [ -f "$touch" ] || { echo "build_time.sh: --touch '$touch': no such file here" >&2; exit 2; }
for r in "${revs[@]}"; do
  git rev-parse --verify -q "${r%%:*}^{commit}" >/dev/null || { echo "build_time.sh: '${r%%:*}' is not a commit here" >&2; exit 2; }
  [[ "$r" != *:* || "${r#*:}" =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]]*$ ]] || { echo "build_time.sh: '$r': after ':' comes one VAR=VALUE" >&2; exit 2; }
done

jobs=$(nproc)
cmd=(make "$target"); [ "$target" = all ] || cmd=(make -j"$jobs" "$target")  # all picks its own -j
echo "build_time: '${cmd[*]}' from a clean clone, $rounds round(s), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $jobs cores"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A walls
for ((round = 1; round <= rounds; round++)); do
  for r in "${revs[@]}"; do
    dir="$tmp/clone"
    rm -rf "$dir"
    git clone -q . "$dir" && git -C "$dir" checkout -q "$(git rev-parse "${r%%:*}")"
    var=(); [[ "$r" != *:* ]] || var=("${r#*:}")
    if ! (cd "$dir" && /usr/bin/time -f "%e %U %S" -o "$tmp/time" "${cmd[@]}" "${var[@]}" >"$tmp/log" 2>&1); then
      tail -20 "$tmp/log"; echo "build_time.sh: '${cmd[*]}' failed at $r" >&2; exit 1
    fi
    read -r wall user sys <"$tmp/time"
    printf "round %d  %-22s %7.1f s wall  %6.1f s user  %5.1f s sys\n" "$round" "$r" "$wall" "$user" "$sys"
    walls[$r]="${walls[$r]:-} $wall"  # the clean build's, not the rebuild's below
    if [ -n "$touch" ]; then
      touch "$dir/$touch"
      (cd "$dir" && /usr/bin/time -f "%e %U %S" -o "$tmp/time" "${cmd[@]}" "${var[@]}" >"$tmp/log" 2>&1) || { tail -20 "$tmp/log"; exit 1; }
      read -r wall user sys <"$tmp/time"
      printf "         %-22s %7.1f s wall  %6.1f s user  %5.1f s sys  after touching %s\n" "" "$wall" "$user" "$sys" "$touch"
    fi
  done
done
first=""
for r in "${revs[@]}"; do
  median=$(tr ' ' '\n' <<<"${walls[$r]}" | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
  [ -n "$first" ] || first=$median
  printf "%-22s median %7.1f s wall  (%.2fx the first)\n" "$r" "$median" "$(awk -v a="$median" -v b="$first" 'BEGIN {print a / b}')"
done
