"""compare_table.py — the ratio table of bench/compare.sh, from its JSON files.

Usage: compare_table.py DIR CPU_NAME, where DIR holds attnlab_t{1,2}_r{N}.json and
(optionally) torch_t{1,2}_r{N}.json. Prints, per workload, the median over rounds of
each run's median (ms), and PyTorch's time divided by attnlab's (> 1: attnlab faster).
"""
import glob
import json
import os
import statistics
import sys


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
    cols = ["workload", "attnlab 1t", "attnlab 2t", "2t speed-up", "torch 1t", "torch 2t", "torch best / attnlab best"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for name in a[1]:
        a1, a2 = a[1].get(name), a[2].get(name)
        p1, p2 = p[1].get(name), p[2].get(name)
        fmt = lambda x: "-" if x is None else f"{x:.4g}"
        speedup = f"{a1 / a2:.2f}x" if a1 and a2 else "-"
        a_best = min(x for x in (a1, a2) if x is not None)
        p_vals = [x for x in (p1, p2) if x is not None]
        ratio = f"{min(p_vals) / a_best:.2f}" if p_vals else "-"
        print(f"| {name} | {fmt(a1)} | {fmt(a2)} | {speedup} | {fmt(p1)} | {fmt(p2)} | {ratio} |")


if __name__ == "__main__":
    main()
