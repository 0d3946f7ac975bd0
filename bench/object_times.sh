#!/usr/bin/env bash
# object_times.sh — where a clean `make -j<cores> build` spends its compile time: clones a
# commit afresh, builds it with the compiler behind a wrapper that times every object, and
# prints the slowest objects and the seconds per group (a library folder's batches, the
# phase sections, the phase programs, tools, benchmarks). Seconds are wall time per compiler
# run, with the cores busy as in a real build, so they add up to about cores x the build's wall.
#
#   bench/object_times.sh [--top 15] [REV]      # REV defaults to HEAD
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: bench/object_times.sh [--top N] [REV]"; }
top=15 rev=HEAD
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --top) [ $# -ge 2 ] || { usage >&2; exit 2; }; top=$2; shift 2 ;;
    -*) echo "object_times.sh: unknown flag '$1'" >&2; usage >&2; exit 2 ;;
    *) rev=$1; shift ;;
  esac
done
[[ "$top" =~ ^[1-9][0-9]*$ ]] || { echo "object_times.sh: --top '$top': must be a whole number >= 1" >&2; exit 2; }
git rev-parse --verify -q "$rev^{commit}" >/dev/null || { echo "object_times.sh: '$rev' is not a commit here" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q . "$tmp/src" && git -C "$tmp/src" checkout -q "$rev"
# The wrapper's path must not contain "clang": the Makefile picks its flags by CXX's name.
cat > "$tmp/timed-cxx" <<'EOF'
#!/usr/bin/env bash
start=$(date +%s%N)
g++ "$@"; rc=$?
out=""; prev=""
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
echo "$(( ($(date +%s%N) - start) / 1000000 )) $out" >> "$TIMES"
exit $rc
EOF
chmod +x "$tmp/timed-cxx"
export TIMES="$tmp/times"
: > "$TIMES"
start=$(date +%s)
make -C "$tmp/src" -j"$(nproc)" build CXX="$tmp/timed-cxx" > "$tmp/make.log" 2>&1 || { tail -20 "$tmp/make.log"; exit 1; }
wall=$(( $(date +%s) - start ))

echo "object_times: $(git rev-parse --short "$rev"), clean make -j$(nproc) build, ${wall} s wall, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "slowest $top (s):"
sort -rn "$TIMES" | head -n "$top" | awk '{printf "  %6.2f  %s\n", $1 / 1000, $2}'
echo "per group (s):"
awk '{
  n = split($2, p, "/"); g = "links and other"
  if ($2 ~ /\/obj\/batches\//) { split(p[n], b, "_"); g = b[1] "/" }
  else if ($2 ~ /\/obj\/phases\/sections\//) g = "phases/sections/"
  else if ($2 ~ /\/obj\/(phases|tools|bench)\//) g = p[3] "/ programs"
  else if ($2 ~ /\.gch$/) g = "precompiled headers"
  s[g] += $1 / 1000; total += $1 / 1000
} END { for (g in s) printf "  %6.1f  %s\n", s[g], g; printf "  %6.1f  total\n", total }' "$TIMES" | sort -rn
