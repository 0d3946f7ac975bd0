#!/usr/bin/env bash
# tools/cross_aarch64.sh — the library and tinygpt built for arm64 (aarch64 Linux) on an x86-64
# machine, run under qemu-aarch64, and checked against this machine's own build: both train the
# causal model for STEPS steps (20 unless set) on one thread, and their final validation losses
# must agree within 1e-3. The two builds differ in their vector code (AVX-512 or AVX here, NEON
# or plain loops there) and so in the order of some sums; the loss must not notice.
#
#   tools/cross_aarch64.sh            what .ci/run's cross stage runs
#
# Needs Debian's g++-aarch64-linux-gnu and qemu-user (qemu-aarch64). The cross build lands in
# build/aarch64/ (the Makefile names a cross build's folder after its target) and links
# dynamically: qemu finds the arm64 C++ runtime in the cross compiler's sysroot (SYSROOT).
# Prints "cross-aarch64: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
cross_cxx=${CROSS_CXX:-aarch64-linux-gnu-g++}
sysroot=${SYSROOT:-/usr/aarch64-linux-gnu}
steps=${STEPS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "cross-aarch64: $1"; echo "cross-aarch64: 0 passed, 1 failed"; exit 1; }
command -v "$cross_cxx" >/dev/null || fail "$cross_cxx is missing (Debian: apt-get install g++-aarch64-linux-gnu)"
command -v qemu-aarch64 >/dev/null || fail "qemu-aarch64 is missing (Debian: apt-get install qemu-user)"

make --no-print-directory -j"${JOBS:-2}" CXX="$cross_cxx" build/aarch64/tinygpt || fail "the aarch64 build failed"
make --no-print-directory -j"${JOBS:-2}" build/tinygpt || fail "the x86-64 build failed"
if command -v file >/dev/null && ! file build/aarch64/tinygpt | grep -q "ARM aarch64"; then
  fail "build/aarch64/tinygpt is not an arm64 program"
fi

# The final validation loss a run prints: "validation loss 2.6049 (...".
final_loss() { sed -n 's/^validation loss \([0-9.]*\).*/\1/p' "$1" | tail -1; }
train=(train --model causal --steps "$steps" --seed 0)
ATTNLAB_NUM_THREADS=1 build/tinygpt "${train[@]}" --out "$tmp/x86_64.safetensors" > "$tmp/x86_64.log" 2>&1 ||
  { cat "$tmp/x86_64.log"; fail "build/tinygpt train failed"; }
ATTNLAB_NUM_THREADS=1 qemu-aarch64 -L "$sysroot" build/aarch64/tinygpt "${train[@]}" --out "$tmp/aarch64.safetensors" \
  > "$tmp/aarch64.log" 2>&1 || { cat "$tmp/aarch64.log"; fail "build/aarch64/tinygpt train under qemu-aarch64 failed"; }
x86=$(final_loss "$tmp/x86_64.log") arm=$(final_loss "$tmp/aarch64.log")
[ -n "$x86" ] && [ -n "$arm" ] || fail "no 'validation loss' line in the output (x86-64: '$x86', aarch64: '$arm')"
echo "cross-aarch64: validation loss after $steps steps: x86-64 $x86, aarch64 (qemu) $arm"
awk -v a="$x86" -v b="$arm" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-3) }' ||
  fail "the two losses differ by more than 1e-3"
echo "cross-aarch64: 1 passed, 0 failed"
