#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# hit-profile-report.py - the table of make bench-profile
#
# Usage: hit-profile-report.py VMLINUX DIR PHASE...
# DIR holds hit0.txt, hit1.txt, ... (bench/hit-profile.py); PHASE i made
# hits 2i (warm-up) and 2i+1 (profiled). Prints instructions per function
# for each phase, the functions whose counts differ first, and the totals.
import bisect
import subprocess
import sys
from collections import Counter

vmlinux, d, phases = sys.argv[1], sys.argv[2], sys.argv[3:]
addrs, names = [], []
for line in subprocess.run(["nm", "-n", vmlinux], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) >= 3 and f[1] in "tTwW":
        addrs.append(int(f[0], 16))
        names.append(f[2])


def func(pc):
    if pc >= 0xffffffffa0000000:	# x86-64 module space: no vmlinux symbol
        return "(module code)"
    i = bisect.bisect_right(addrs, pc) - 1
    return names[i] if i >= 0 else "?"


prof = {}
for i, p in enumerate(phases):
    try:
        with open("%s/hit%d.txt" % (d, 2 * i + 1)) as f:
            prof[p] = Counter(func(int(x, 16)) for x in f.read().split())
    except OSError:
        sys.exit("hit-profile: no profile of phase %s (hit %d)" % (p, 2 * i + 1))

first, last = phases[0], phases[-1]
print("Instructions of one hit of ksym_hitgen_var, per function (gdb single-step;")
print("rep-prefixed instructions count once per iteration)")
fmt = "  %-40s" + " %10s" * len(phases)
print(fmt % (("function",) + tuple(phases)))
funcs = set().union(*prof.values())
for fn in sorted(funcs, key=lambda k: (-(prof[first][k] - prof[last][k]),
                                       -prof[first][k], k)):
    row = [prof[p][fn] for p in phases]
    if len(set(row)) > 1:
        print(fmt % ((fn,) + tuple(row)))
same = sum(prof[last][fn] for fn in funcs
           if len({prof[p][fn] for p in phases}) == 1)
print(fmt % (("(functions alike in every phase)",) + (same,) * len(phases)))
print(fmt % (("total",) + tuple(sum(prof[p].values()) for p in phases)))
