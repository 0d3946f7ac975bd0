#!/bin/sh
# compare.sh — attnlab's bench_workloads beside tuned PyTorch (../shared/bench/torch_peer.py)
# on this machine, in interleaved rounds, and the ratio table.
#
#   bench/compare.sh [--rounds N] [--only REGEX] [--peer PATH]     (or: make bench-compare)
#
# --peer: torch_peer.py (default ../shared/bench/torch_peer.py, beside the repository).
#
# Each round runs, one after another: attnlab at 1 thread, PyTorch at 1 thread,
# attnlab at 2 threads, PyTorch at 2 threads; so a noisy neighbour hurts both sides
# alike. The table shows, per workload and thread count, the median over rounds of
# each run's median, and PyTorch ÷ attnlab (> 1: attnlab is faster). Attention's fused
# path (flash_fwd_T{T}) stands beside PyTorch's (sdpa_fwd_T{T}), and a second table gives
# W3's GFLOP/s against the FLOP limit, one core's multiply-add peak as bench_workloads'
# fma_peak measures it in the same run (run whatever --only says; compare_table.py).
#
# PyTorch is set up as the issue measured it: OPENBLAS_CORETYPE=SkylakeX, so Debian's
# OpenBLAS uses its AVX-512 kernels (it detects a Zen CPU as Haswell), and at 2 threads
# OMP_WAIT_POLICY=PASSIVE. Needs Debian's python3-torch (optional: without it the
# script says so and prints attnlab's numbers alone).
set -eu
cd "$(dirname "$0")/.."
rounds=2
peer=../shared/bench/torch_peer.py
only='toy_mha|mid_mha|(attn|flash|sdpa)_fwd_T(512|1024|2048)$|flash_fwd_bwd_T(512|1024|2048)$|(attention|sdpa)_fwd_bwd_T|toy_lm|nanogpt|generate'
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        --peer) peer="$2"; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "compare.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case "$rounds" in ''|*[!0-9]*|0) echo "compare.sh: --rounds must be a positive integer, got '$rounds'" >&2; exit 2 ;; esac

python=/usr/bin/python3
have_torch=yes
if [ ! -f "$peer" ] || ! "$python" -c 'import torch' 2>/dev/null; then
    echo "compare.sh: PyTorch peer not available ($peer with Debian's python3-torch); attnlab only" >&2
    have_torch=no
fi
# Debian's PyTorch calls whatever libblas.so.3 the alternatives name: with python3-torch alone
# that is the reference BLAS, an order of magnitude slower than OpenBLAS on W4: the line below
# names the BLAS PyTorch used, so a slow peer is not mistaken for a fast attnlab.
if [ "$have_torch" = yes ]; then
    blas=$(/sbin/ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libblas\.so\.3 (.*x86-64.*) => //p' | head -1)
    [ -z "$blas" ] || blas=$(readlink -f "$blas")
    case "$blas" in
        *openblas*) ;;
        *) echo "compare.sh: warning: PyTorch's BLAS is '${blas:-none found}', not OpenBLAS, so the peer is not tuned; install libopenblas0" >&2 ;;
    esac
fi

make --no-print-directory -j2 build/bench_workloads >&2
out=out/bench/compare
rm -rf "$out" && mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
    for t in 1 2; do
        echo "round $r/$rounds, $t thread(s): attnlab" >&2
        build/bench_workloads --threads "$t" --only "$only|^fma_peak\$" --json "$out/attnlab_t${t}_r$r.json" >&2
        if [ "$have_torch" = yes ]; then
            echo "round $r/$rounds, $t thread(s): PyTorch" >&2
            if [ "$t" = 2 ]; then wait_policy=PASSIVE; else wait_policy=; fi
            env OPENBLAS_CORETYPE=SkylakeX ${wait_policy:+OMP_WAIT_POLICY=$wait_policy} \
                "$python" "$peer" --threads "$t" --only "$only" --json > "$out/torch_t${t}_r$r.json"
        fi
    done
done
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
"$python" bench/compare_table.py "$out" "$cpu"
