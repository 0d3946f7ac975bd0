#!/usr/bin/env bash
# readme_commands.sh — runs the commands of README's "Try your own" as written,
# with short step counts (so CI takes seconds, not minutes) and --out in a temporary folder.
# Needs the programs and checkpoints of `make all`. Prints "readme-commands: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
commands=$(sed -n '/<!-- run-your-own: begin -->/,/<!-- run-your-own: end -->/p' README.md | grep '^build/')
[ -n "$commands" ] || { echo "readme-commands: no commands found in README.md"; echo "readme-commands: 0 passed, 1 failed"; exit 1; }
while IFS= read -r cmd; do
  short=""  # each phase's training budget, cut down unless the command sets it itself
  case "$cmd" in
    build/phase1_*) short="--steps 20" ;;
    build/phase2_*) short="--steps 20" ;;
    build/phase4_*) short="--steps 25" ;;
    build/phase5_*) short="--steps 30 --cost-t 64,128" ;;
  esac
  [[ "$cmd" == *--steps* ]] && short=""
  run="${cmd//--out mine/--out $tmp} $short"
  run="${run//--checkpoint mine/--checkpoint $tmp}"  # a checkpoint an earlier line trained
  run="${run//--show mine/--show $tmp}"
  run="${run//--resume mine/--resume $tmp}"
  run="${run//--compare-checkpoint mine/--compare-checkpoint $tmp}"
  echo "== $run"
  if eval "$run" > "$tmp/log" 2>&1; then pass=$((pass + 1)); else fail=$((fail + 1)); tail -20 "$tmp/log"; fi
done <<< "$commands"
echo "readme-commands: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
