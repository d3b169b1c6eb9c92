#!/usr/bin/env python3
"""Compares two benchmark result files in Google Benchmark's JSON format, as Google
Benchmark's tools/compare.py does in its `benchmarks` mode, with the Python standard
library only: `tt bench --json`, tools/device/bench_pytorch.py --json and any Google
Benchmark program (--benchmark_out_format=json) write such files.

    python3 tools/bench_compare.py BASELINE.json CONTENDER.json
    python3 tools/bench_compare.py --by-model pytorch.json ours.json

--by-model drops the last part of each benchmark name ("GemmBiasReLU/full/eager" and
"GemmBiasReLU/full/tuned" are both "GemmBiasReLU/full"), so that PyTorch's timings
from bench_pytorch.py line up with ours; pick one of a file's variants with
--baseline-variant / --contender-variant (e.g. eager or compile; tuned or default).

For every benchmark name present in both files it prints the relative change of the
real time, (new - old) / old (negative: the contender is faster), and both times in
milliseconds. With repetitions, the aggregates (median, mean, min, p10, p90) are
compared; files without aggregates are compared run by run. The last line is the
geometric mean of new / old over the medians (or the runs). Exit code 0, or 1 when a
file cannot be read or the two share no benchmark.
"""
import argparse
import json
import math
import sys

TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
COMPARED_AGGREGATES = ("median", "mean", "min", "p10", "p90")


def load(path, by_model=False, variant=None):
    """name -> real time in ms, for the rows worth comparing, in file order."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"bench_compare: cannot read {path}: {e}")
    rows = doc.get("benchmarks") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise SystemExit(f"bench_compare: {path} has no 'benchmarks' list (Google Benchmark JSON)")
    aggregates = [r for r in rows if r.get("run_type") == "aggregate"]
    chosen = [r for r in aggregates if r.get("aggregate_name") in COMPARED_AGGREGATES]
    if not aggregates:
        chosen = rows
    times = {}
    for r in chosen:
        name = r.get("name", "")
        if by_model:
            run, _, rest = r.get("run_name", name).rpartition("/")
            if variant is not None and rest != variant:
                continue
            suffix = name[len(r.get("run_name", name)):]
            name = run + suffix
        try:
            times[name] = float(r["real_time"]) * TO_MS[r.get("time_unit", "ns")]
        except (KeyError, TypeError, ValueError):
            raise SystemExit(f"bench_compare: {path}: a benchmark row without name, real_time "
                             f"or a known time_unit: {str(r)[:80]}")
    return times, bool(aggregates)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("baseline")
    ap.add_argument("contender")
    ap.add_argument("--by-model", action="store_true",
                    help="match benchmarks by their name without its last part")
    ap.add_argument("--baseline-variant", help="with --by-model: only this last part (eager)")
    ap.add_argument("--contender-variant", help="with --by-model: only this last part (tuned)")
    args = ap.parse_args()
    old, old_agg = load(args.baseline, args.by_model, args.baseline_variant)
    new, _ = load(args.contender, args.by_model, args.contender_variant)
    names = [n for n in old if n in new]
    if not names:
        print("bench_compare: the two files share no benchmark name", file=sys.stderr)
        return 1
    width = max(len("Benchmark"), max(len(n) for n in names))
    print(f"{'Benchmark':<{width}}  {'Time':>8}  {'Time Old':>10}  {'Time New':>10}  (ms)")
    print("-" * (width + 38))
    ratios = []
    for n in names:
        o, c = old[n], new[n]
        diff = (c - o) / o if o > 0 else float("nan")
        print(f"{n:<{width}}  {diff:+8.4f}  {o:10.4f}  {c:10.4f}")
        if o > 0 and c > 0 and (not old_agg or n.endswith("_median")):
            ratios.append(c / o)
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"{'OVERALL geomean (new/old)':<{width}}  {geomean - 1:+8.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
