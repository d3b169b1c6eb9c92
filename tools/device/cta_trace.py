#!/usr/bin/env python3
"""Summarises the attention kernel bench's per-CTA trace (KB_TRACE=1: TR rows).

Usage: tools/device/cta_trace.py BENCH_OUTPUT.csv

Per (shape, variant): the launch's span, how busy the SMs were (the CTAs' time over SMs
x span), the gap between one CTA's end and the next one's start on an SM, the idle tail,
and the medians of the kernels' marks (microseconds from each CTA's start), grouped by
the CTA's duration in quartiles (causal grids mix long and short CTAs). The marks'
meaning is the kernel's (attention_wgmma_kernels.cuh: kDiagTrace): 3 Q ready, 4 the
first stage landed, 5 and 8 the first softmax done (consumer 0, 1), 6 the key loop done,
7 and 9 before the store (consumer 0, 1); the persistent kernels' items by key tiles after.
"""
import collections
import csv
import statistics
import sys

MARKS = {3: "q", 4: "k0", 5: "sm0", 8: "sm0.c1", 6: "loop", 7: "store", 9: "store.c1"}


def main(path):
    runs = collections.defaultdict(list)
    for r in csv.reader(open(path)):
        if r and r[0] == "TR":
            runs[(r[1], r[2])].append([int(x) for x in r[3:]])
    for (shape, variant), ctas in runs.items():
        # cta, start, end, sm, marks 3..9
        t0 = min(c[1] for c in ctas)
        t1 = max(c[2] for c in ctas)
        span = (t1 - t0) / 1e3
        by_sm = collections.defaultdict(list)
        for c in ctas:
            by_sm[c[3]].append((c[1], c[2]))
        gaps, tails = [], []
        for spans in by_sm.values():
            spans.sort()
            gaps += [(b[0] - a[1]) / 1e3 for a, b in zip(spans, spans[1:])]
            tails.append((t1 - spans[-1][1]) / 1e3)
        busy = sum(c[2] - c[1] for c in ctas) / 1e3 / (len(by_sm) * span)
        print(f"{shape} | {variant}: {len(ctas)} CTAs on {len(by_sm)} SMs, span {span:.1f} us, "
              f"busy {busy:.3f}, gap median {statistics.median(gaps) if gaps else 0:.2f} us, "
              f"tail median {statistics.median(tails):.1f} max {max(tails):.1f} us")
        ctas.sort(key=lambda c: c[2] - c[1])
        print("   quartile  CTAs  duration " + " ".join(f"{n:>9s}" for n in MARKS.values()))
        for q in range(4):
            part = ctas[q * len(ctas) // 4:(q + 1) * len(ctas) // 4]
            if not part:
                continue
            cols = []
            for w in MARKS:
                xs = [(c[1 + w] - c[1]) / 1e3 for c in part if c[1 + w]]
                cols.append(f"{statistics.median(xs):9.2f}" if xs else f"{'-':>9s}")
            dur = statistics.median((c[2] - c[1]) / 1e3 for c in part)
            print(f"   {q + 1:8d} {len(part):5d} {dur:9.2f} " + " ".join(cols))
        items(ctas)


ITEM_WORDS = 7  # the persistent kernels' per-item record: start, q, sm0, loop, end, tiles,
# the producer's wait for the item's Vt (pipe 11)
ITEM_STEPS = ("q", "sm0", "loop", "end")


def items(ctas):
    """The persistent kernels' items (consumer 0's marks per item of a CTA's walk): medians
    by key-tile count of each step's time after the one before, the item's duration, and
    the gap from the item before's end."""
    by_tiles = collections.defaultdict(list)
    for c in ctas:
        words = c[1:]  # the record from word 0: start, end, SM, marks 3-9, items
        prev_end = None
        for n in range(10, len(words) - ITEM_WORDS + 1, ITEM_WORDS):
            w = words[n:n + ITEM_WORDS]
            if not w[0] or not w[4]:
                break
            steps = [(w[k + 1] - w[k]) / 1e3 for k in range(4)]
            gap = (w[0] - prev_end) / 1e3 if prev_end else None
            by_tiles[w[5]].append(steps + [(w[4] - w[0]) / 1e3, gap, w[6] / 1e3])
            prev_end = w[4]
    if not by_tiles:
        return
    print("   items by key tiles: count, then medians (us) of " +
          ", ".join(ITEM_STEPS) + ", duration, gap after the item before, the producer's wait "
          "for Vt")
    for tiles in sorted(by_tiles):
        rows = by_tiles[tiles]
        cols = []
        for k in range(7):
            xs = [r[k] for r in rows if r[k] is not None]
            cols.append(f"{statistics.median(xs):8.2f}" if xs else f"{'-':>8s}")
        print(f"   {tiles:5d} tiles {len(rows):6d} " + " ".join(cols))


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    main(sys.argv[1])
