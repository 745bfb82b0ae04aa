#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-shot.py - find the ksym plugin's hit markers in a KernelShark screenshot.

A marker is a vertical stem in the symbol's colour, as tall as the graph,
topped by a head (KsymHits.cpp). This looks for columns holding a vertical
run of at least MIN_RUN pixels of exactly one of the plugin's colours (the
first NR_COLOURS of KsymPalette, read from KsymHits.cpp) and groups the runs
into graphs by their vertical position.

  check-shot.py [--quiet] [--none] [--colours N] [--expect-graphs G] SHOT.png
  check-shot.py --legend [--colours N] [--expect-graphs G] SHOT.png
  check-shot.py --head C SHOT.png      print "x y" of a marker head of colour C
  check-shot.py --count RRGGBB SHOT.png   print the number of pixels of that colour

Exit 0 when every one of the N colours has stems in at least G graphs
(default: N=2, G=1); with --none, exit 0 when no colour has any stem.

--legend checks that the legends hide no marker. Marker pixels are the
pixels of exactly a symbol's colour that connect to one of its stems (stem
and head; markers are drawn without anti-aliasing). Legend pixels are the
anti-aliased text: pixels that are a symbol's colour blended over the white
background, never exactly the colour. They are grouped into boxes (rows with
legend pixels, split where a row band has a gap wider than LEGEND_GAP): a
legend's box is the bounding box of its ink. Exit 0 when every colour has a
legend box in at least G places and no marker pixel of any colour lies inside
any legend box.
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


LEGEND_GAP = 12
WHITE = (255, 255, 255)


def tinted(p, colour):
    """True when p is colour blended over white (0.05 < alpha < 1)."""
    if p == colour or p == WHITE:
        return False
    k = max(range(3), key=lambda i: 255 - colour[i])
    a = (255 - p[k]) / (255 - colour[k])
    if not 0.05 < a < 1:
        return False
    return all(abs(255 - a * (255 - c) - v) <= 6 for v, c in zip(p, colour))


def marker_pixels(width, data, colour, runs):
    """Pixels of exactly colour 8-connected to a stem: the markers."""
    want = bytes(colour)

    def exact(x, y):
        i = 3 * (y * width + x)
        return 0 <= x < width and 0 <= i < len(data) and data[i:i + 3] == want

    seen = set()
    todo = [(x, y) for x, top, bottom in runs for y in range(top, bottom + 1)]
    while todo:
        x, y = todo.pop()
        if (x, y) in seen or not exact(x, y):
            continue
        seen.add((x, y))
        todo.extend((x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
    return seen


def legend_boxes(width, data, colour, y0, y1):
    """Boxes (x0, y0, x1, y1) of the legend text in colour, rows y0..y1."""
    rows = {}
    for y in range(max(y0, 0), y1 + 1):
        line = data[3 * y * width:3 * (y + 1) * width]
        xs = [x for x in range(width) if tinted(tuple(line[3 * x:3 * x + 3]), colour)]
        if xs:
            rows[y] = xs
    boxes = []
    band = []
    for y in sorted(rows) + [None]:
        if band and (y is None or y > band[-1] + 2):
            xs = sorted(set(x for r in band for x in rows[r]))
            start = prev = xs[0]
            for x in xs[1:] + [None]:
                if x is not None and x - prev <= LEGEND_GAP:
                    prev = x
                    continue
                ys = [r for r in band if any(start <= v <= prev for v in rows[r])]
                boxes.append((start, min(ys), prev, max(ys)))
                if x is not None:
                    start = prev = x
            band = []
        if y is not None:
            band.append(y)
    return boxes


def check_legend(width, height, data, colours, expect):
    """0 when each colour has legends in expect places and none hides a marker."""
    runs = {c: stems(width, height, data, c) for c in colours}
    allruns = [r for c in colours for r in runs[c]]
    if not allruns:
        print("  legend: no marker found")
        return 1
    # Legends lie in the graph area: from a graph's height above the first
    # marker top to the last marker bottom.
    top = min(r[1] for r in allruns)
    bottom = max(r[2] for r in allruns)
    y0 = top - (bottom - top) // 4 - 30
    markers = set()
    for c in colours:
        markers |= marker_pixels(width, data, c, runs[c])
    ok = True
    for n, c in enumerate(colours):
        boxes = [b for b in legend_boxes(width, data, c, y0, bottom)
                 if b[2] - b[0] >= 20 and b[3] - b[1] <= 20]
        print("  legend colour %d #%02x%02x%02x: %d box(es)%s"
              % ((n,) + c + (len(boxes), "".join(" %d,%d..%d,%d" % b for b in boxes))))
        if len(boxes) < expect:
            print("  FAIL: colour %d: legend in %d place(s), expected %d"
                  % (n, len(boxes), expect))
            ok = False
        for b in boxes:
            hidden = [(x, y) for x, y in markers
                      if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
            if hidden:
                print("  FAIL: legend box %d,%d..%d,%d covers %d marker pixel(s), e.g. %d,%d"
                      % (b + (len(hidden),) + min(hidden)))
                ok = False
    if ok:
        print("  legend: no marker pixel under a legend (%d marker pixels)" % len(markers))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shot")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--none", action="store_true")
    ap.add_argument("--colours", type=int, default=2)
    ap.add_argument("--expect-graphs", type=int, default=1)
    ap.add_argument("--head", type=int)
    ap.add_argument("--count")
    ap.add_argument("--legend", action="store_true")
    args = ap.parse_args()

    width, height, data = load(args.shot)
    if args.count:
        want = bytes.fromhex(args.count)
        print(sum(1 for m in re.finditer(re.escape(want), data)
                  if m.start() % 3 == 0))
        return 0
    if args.legend:
        return check_legend(width, height, data, palette()[:args.colours],
                            args.expect_graphs)
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
