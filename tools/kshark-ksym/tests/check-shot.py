#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-shot.py - find the ksym plugin's hit markers in a KernelShark screenshot.

A marker is a vertical stem in the symbol's colour, as tall as the graph,
topped by a head (KsymHits.cpp). This looks for columns holding a vertical
run of at least MIN_RUN pixels of exactly one of the plugin's colours (the
first NR_COLOURS of KsymPalette, read from KsymHits.cpp) and groups the runs
into graphs by their vertical position.

  check-shot.py [--quiet] [--none] [--colours N] [--expect-graphs G] SHOT.png
  check-shot.py --head C SHOT.png      print "x y" of a marker head of colour C
  check-shot.py --count RRGGBB SHOT.png   print the number of pixels of that colour

Exit 0 when every one of the N colours has stems in at least G graphs
(default: N=2, G=1); with --none, exit 0 when no colour has any stem.
"""
import argparse
import os
import re
import subprocess
import sys

MIN_RUN = 12
HERE = os.path.dirname(os.path.abspath(__file__))


def palette():
    src = open(os.path.join(HERE, "..", "KsymHits.cpp")).read()
    body = re.search(r"KsymPalette\[\] = \{(.*?)\n\};", src, re.S).group(1)
    return [tuple(int(v, 16) for v in m)
            for m in re.findall(r"\{0x(\w\w), 0x(\w\w), 0x(\w\w)\}", body)]


def load(png):
    ppm = subprocess.run(["convert", png, "-depth", "8", "ppm:-"],
                         check=True, capture_output=True).stdout
    # P6\nW H\n255\n
    parts = ppm.split(maxsplit=4)
    assert parts[0] == b"P6" and parts[3] == b"255", "unexpected PPM"
    return int(parts[1]), int(parts[2]), parts[4]


def stems(width, height, data, colour):
    """Runs (x, y_top, y_bottom) of at least MIN_RUN pixels of colour."""
    cols = {}
    for m in re.finditer(re.escape(bytes(colour)), data):
        if m.start() % 3:
            continue
        y, x = divmod(m.start() // 3, width)
        cols.setdefault(x, []).append(y)
    found = []
    for x, ys in sorted(cols.items()):
        start = prev = ys[0]
        for y in ys[1:] + [None]:
            if y is not None and y == prev + 1:
                prev = y
                continue
            if prev - start + 1 >= MIN_RUN:
                found.append((x, start, prev))
            if y is not None:
                start = prev = y
    return found


def graphs(runs):
    """Group the runs into bands of overlapping vertical extent."""
    bands = []
    for _, top, bottom in sorted(runs, key=lambda r: r[1]):
        if bands and top <= bands[-1][1]:
            bands[-1][1] = max(bands[-1][1], bottom)
        else:
            bands.append([top, bottom])
    return bands


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shot")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--none", action="store_true")
    ap.add_argument("--colours", type=int, default=2)
    ap.add_argument("--expect-graphs", type=int, default=1)
    ap.add_argument("--head", type=int)
    ap.add_argument("--count")
    args = ap.parse_args()

    width, height, data = load(args.shot)
    if args.count:
        want = bytes.fromhex(args.count)
        print(sum(1 for m in re.finditer(re.escape(want), data)
                  if m.start() % 3 == 0))
        return 0
    if args.head is not None:
        runs = stems(width, height, data, palette()[args.head])
        if not runs:
            return 1
        # The head sits on the top of the stem: a few pixels below its top.
        x, top, _ = min(runs, key=lambda r: (r[1], r[0]))
        print(x, top + 4)
        return 0
    ok = True
    total = 0
    for n, colour in enumerate(palette()[:args.colours]):
        runs = stems(width, height, data, colour)
        bands = graphs(runs)
        total += len(runs)
        if not args.quiet:
            print("  colour %d #%02x%02x%02x: %d stem column(s) in %d graph band(s)%s"
                  % ((n,) + colour + (len(runs), len(bands),
                     "".join(" y=%d..%d" % tuple(b) for b in bands))))
        if len(bands) < args.expect_graphs:
            ok = False
    if args.none:
        return 0 if total == 0 else 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
