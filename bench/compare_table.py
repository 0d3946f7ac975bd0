"""compare_table.py — the ratio table of bench/compare.sh, from its JSON files.

Usage: compare_table.py DIR CPU_NAME, where DIR holds attnlab_t{1,2}_r{N}.json and
(optionally) torch_t{1,2}_r{N}.json. Prints, per workload, the median over rounds of
each run's median (ms), and PyTorch's time divided by attnlab's (> 1: attnlab faster).

Rows pair by name, except attnlab's fused attention flash_fwd_T{T}, which stands beside
PyTorch's fused path sdpa_fwd_T{T} (torch_peer.py's F.scaled_dot_product_attention or,
in torch 1.13, F._scaled_dot_product_attention), and W4 split in two shards,
toy_lm_train_step_2shards, which stands beside PyTorch's one W4 step. A second table gives each attention
row's GFLOP/s (W3: 4·T²·d_k·H flops, B 1, H 8, d_k 64; W3b and W8 forward + backward: 3× that;
W7: nanoGPT's count, below)
against the FLOP limit: one core's multiply-add peak per thread, as bench_workloads'
fma_peak measured it in the same run (1 GFLOP per call; compare.sh always runs it).
"""
import glob
import json
import os
import re
import statistics
import sys

PEAK = "fma_peak"  # bench_workloads' 1 GFLOP of register FMAs: median_ms is ms per GFLOP
PEER_NAME = [(re.compile(r"^flash_fwd_T(\d+)$"), r"sdpa_fwd_T\1"),  # attnlab name -> torch_peer.py name
             (re.compile(r"^toy_lm_train_step_2shards$"), r"toy_lm_train_step"),
             (re.compile(r"^attention_fwd_bwd_T(\d+)$"), r"sdpa_fwd_bwd_T\1")]
ATTENTION = re.compile(r"^(attn|flash|sdpa|attention)_fwd(_bwd)?_T(\d+)$")
# W7's FLOPs per step as nanoGPT's estimate_mfu counts them (bench_workloads.cpp says why):
# 6 per non-embedding parameter per token plus 12 · layers · d_model · T per token, 12 x 64 tokens.
W7 = "nanogpt_cpu_train_step"
W7_FLOPS = (6 * (818176 - 65 * 128 - 64 * 128) + 12 * 4 * 128 * 64) * 12 * 64


def peer_name(name):
    for pattern, repl in PEER_NAME:
        if pattern.match(name):
            return pattern.sub(repl, name)
    return name


def attention_flops(name):
    if name == W7:
        return W7_FLOPS
    m = ATTENTION.match(name)
    if not m:
        return None
    T = int(m.group(3))
    return 4.0 * T * T * 64 * 8 * (3 if m.group(2) else 1)


def medians(directory, side, threads):
    per_name = {}
    for path in sorted(glob.glob(os.path.join(directory, f"{side}_t{threads}_r*.json"))):
        with open(path) as f:
            for r in json.load(f)["results"]:
                per_name.setdefault(r["name"], []).append(r["median_ms"])
    return {name: statistics.median(v) for name, v in per_name.items()}


def main():
    directory, cpu = sys.argv[1], sys.argv[2]
    a = {t: medians(directory, "attnlab", t) for t in (1, 2)}
    p = {t: medians(directory, "torch", t) for t in (1, 2)}
    rounds = len(glob.glob(os.path.join(directory, "attnlab_t1_r*.json")))
    print(f"\nCPU: {cpu}; {rounds} interleaved round(s), medians in ms; "
          "PyTorch with OPENBLAS_CORETYPE=SkylakeX (2 threads: OMP_WAIT_POLICY=PASSIVE)")
    # The peer names the PyTorch and the BLAS library it loaded: a slow BLAS is a slow peer.
    for path in sorted(glob.glob(os.path.join(directory, "torch_t1_r*.json")))[:1]:
        with open(path) as f:
            info = json.load(f).get("info", {})
        print(f"PyTorch {info.get('torch', '?')}, BLAS {info.get('blas', '?')}, "
              f"CPU capability {info.get('cpu_capability', '?')}")
    cols = ["workload", "attnlab 1t", "attnlab 2t", "2t speed-up", "torch 1t", "torch 2t", "torch best / attnlab best"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    fmt = lambda x: "-" if x is None else f"{x:.4g}"
    for name in a[1]:
        if name == PEAK:
            continue
        peer = peer_name(name)
        a1, a2 = a[1].get(name), a[2].get(name)
        p1, p2 = p[1].get(peer), p[2].get(peer)
        speedup = f"{a1 / a2:.2f}x" if a1 and a2 else "-"
        a_best = min(x for x in (a1, a2) if x is not None)
        p_vals = [x for x in (p1, p2) if x is not None]
        ratio = f"{min(p_vals) / a_best:.2f}" if p_vals else "-"
        label = name if peer == name else f"{name} (torch: {peer})"
        print(f"| {label} | {fmt(a1)} | {fmt(a2)} | {speedup} | {fmt(p1)} | {fmt(p2)} | {ratio} |")
    gflops_table(a, p)


def gflops_table(a, p):
    """W3 / W3b / W7 / W8 rows: GFLOP/s of each side and thread count, and the limit's time."""
    names = [n for n in a[1] if attention_flops(n)]
    if not names:
        return
    if PEAK not in a[1]:
        print(f"\n(no {PEAK} in attnlab's results, so no table of GFLOP/s against the FLOP limit)")
        return
    limit = 1e3 / a[1][PEAK]  # GFLOP/s of one core
    print(f"\nAttention GFLOP/s (model flops / median time) against the FLOP limit, one core's measured "
          f"multiply-add peak ({PEAK}): {limit:.0f} GFLOP/s per core ({2 * limit:.0f} at 2 threads)")
    cols = ["workload", "limit ms 1t", "attnlab 1t", "attnlab 2t", "torch 1t", "torch 2t", "attnlab best, % of limit"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for name in names:
        flops, peer = attention_flops(name), peer_name(name)
        g = lambda ms: "-" if ms is None else f"{flops / (ms * 1e6):.1f}"
        a1, a2 = a[1].get(name), a[2].get(name)
        pct = max(flops / (ms * 1e6) / (limit * t) for t, ms in ((1, a1), (2, a2)) if ms is not None) * 100
        label = name if peer == name else f"{name} (torch: {peer})"
        print(f"| {label} | {flops / (limit * 1e9) * 1e3:.3g} | {g(a1)} | {g(a2)} | "
              f"{g(p[1].get(peer))} | {g(p[2].get(peer))} | {pct:.0f}% |")


if __name__ == "__main__":
    main()
