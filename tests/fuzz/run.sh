#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD_DIR SECONDS TARGET... — what `make fuzz` and `make fuzz-replay` run.
#
# For each target (a libFuzzer binary BUILD_DIR/<target>):
#   1. replay every file in tests/fuzz/regressions/<target>/ once (inputs that once
#      crashed or failed a round trip; a failure here is a regression);
#   2. if SECONDS > 0, fuzz for SECONDS, starting from the seeds in
#      tests/fuzz/corpus/<target>/ plus what earlier runs found (BUILD_DIR/corpus/<target>/,
#      never committed), and print the final figures: executions, executions per second,
#      coverage (cov: edges, ft: features) and corpus size.
# A crash is saved under BUILD_DIR/crashes/<target>/; fix it, then move the file to
# tests/fuzz/regressions/<target>/. Ends with "fuzz: N passed, N failed" (one per target).
set -uo pipefail
build=$1 seconds=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
passed=0 failed=0
for t in "$@"; do
  bin=$build/$t name=${t#fuzz_} ok=1
  regressions=()
  if [ -d "$here/regressions/$name" ]; then
    while IFS= read -r -d '' f; do regressions+=("$f"); done < <(find "$here/regressions/$name" -type f ! -name '.*' -print0 | sort -z)
  fi
  if [ ${#regressions[@]} -gt 0 ]; then
    if "$bin" "${regressions[@]}" > "$build/$t.replay.log" 2>&1; then
      echo "$t: ${#regressions[@]} regression inputs replayed, all pass"
    else
      echo "$t: a regression input fails:"; tail -30 "$build/$t.replay.log"; ok=0
    fi
  else
    echo "$t: no regression inputs"
  fi
  if [ "$seconds" -gt 0 ] && [ $ok = 1 ]; then
    mkdir -p "$build/corpus/$name" "$build/crashes/$name"
    log=$build/$t.log
    "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/crashes/$name/" "$build/corpus/$name" "$here/corpus/$name" > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1)
    if [ $rc -eq 0 ]; then
      echo "$t: ${execs:-?} execs in ${seconds} s, ${rate:-?} exec/s, $cov"
    else
      echo "$t: FAILED after ${execs:-?} execs (saved in $build/crashes/$name/):"; grep -E "ERROR|round trip|terminate called|what\(\)|SUMMARY|==[0-9]+==" "$log" | head -20; ok=0
    fi
  fi
  if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
