#!/usr/bin/env python3
"""metrics_reference.py — the phases' default numbers, recorded once and checked after every run.

Every phase program writes out/phaseN/metrics.json. With its default settings a phase must
reproduce, bit for bit, every number that does not measure time. This script keeps those
numbers in one committed file and compares a run with it:

    tools/metrics_reference.py write [OUT] [REFERENCE]   record OUT/phase1..5/metrics.json
    tools/metrics_reference.py check [OUT] [REFERENCE]   compare a run with the record

OUT defaults to out/, REFERENCE to tests/phases/metrics_reference.json. `make metrics-reference`
runs `write` after `make all`: the one command to run when a change is meant to move the
numbers (new training numerics, a new default), with the reason in the commit message.

A value is left out when it measures time: any key that names seconds or milliseconds, a
speed-up, and phase 5's attention_cost section (timings and the exponent fitted to them).
Everything else is compared exactly: numbers as JSON holds them, strings, booleans, lists.
Exit status: 0 when every recorded value matches, 1 when one differs or is missing, 2 on bad use.
"""
import json
import os
import re
import sys

PHASES = range(1, 6)
TIMING_KEY = re.compile(r"(seconds|(^|_)ms($|_)|speedup)")
TIMING_SECTIONS = {("phase5", "attention_cost")}


def flatten(node, path, out):
    """Every leaf under node as out["phaseN/a/b/3"] = value; lists of numbers stay whole."""
    if isinstance(node, dict):
        for key, value in node.items():
            if TIMING_KEY.search(key) or (path[0], key) in TIMING_SECTIONS:
                continue
            flatten(value, path + [key], out)
    elif isinstance(node, list) and any(isinstance(v, (dict, list)) for v in node):
        for i, value in enumerate(node):
            flatten(value, path + [str(i)], out)
    else:
        out["/".join(path)] = node


def collect(out_dir):
    values = {}
    for n in PHASES:
        path = os.path.join(out_dir, f"phase{n}", "metrics.json")
        try:
            with open(path, encoding="utf-8") as f:
                metrics = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"metrics_reference: cannot read {path}: {e}")
        flatten(metrics, [f"phase{n}"], values)
    return values


def main(argv):
    if len(argv) < 2 or argv[1] not in ("write", "check") or len(argv) > 4 or "--help" in argv:
        print(__doc__.strip(), file=sys.stderr if "--help" not in argv else sys.stdout)
        return 0 if "--help" in argv else 2
    out_dir = argv[2] if len(argv) > 2 else "out"
    reference = argv[3] if len(argv) > 3 else "tests/phases/metrics_reference.json"
    values = collect(out_dir)
    if argv[1] == "write":
        tmp = f"{reference}.tmp.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(values, f, indent=0, sort_keys=True)
            f.write("\n")
        os.replace(tmp, reference)
        print(f"metrics_reference: wrote {len(values)} values from {out_dir}/phase1-5 to {reference}")
        return 0
    with open(reference, encoding="utf-8") as f:
        expected = json.load(f)
    wrong = [k for k in sorted(expected) if k not in values or values[k] != expected[k]]
    for k in wrong[:20]:
        got = values.get(k, "<missing>")
        print(f"  {k}: reference {json.dumps(expected[k])[:120]}, this run {json.dumps(got)[:120]}")
    extra = sorted(set(values) - set(expected))
    print(f"metrics-reference: {len(expected) - len(wrong)} passed, {len(wrong)} failed"
          + (f" ({len(extra)} new values not in the reference, e.g. {extra[0]})" if extra else ""))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
