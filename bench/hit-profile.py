# SPDX-License-Identifier: GPL-2.0
# hit-profile.py - gdb script of make bench-profile (bench/hit-profile.sh)
#
# Connects to QEMU's gdbstub, stops at every debug exception (asm_exc_debug)
# and single-steps it until the CPU is back at the interrupted instruction
# (the RIP of the exception frame), writing the address of every instruction
# executed, one per line, to $KSYM_PROF_DIR/hitN.txt. QEMU's single-step
# masks interrupts and timers: the trace is the exception's own.
import os
import time

import gdb

OUT = os.environ["KSYM_PROF_DIR"]
HITS = int(os.environ.get("KSYM_PROF_HITS", "8"))
PORT = os.environ.get("KSYM_PROF_PORT", "1234")
ulong = gdb.lookup_type("unsigned long")

gdb.execute("set pagination off")
gdb.execute("set confirm off")
for attempt in range(50):	# QEMU may not listen yet
    try:
        gdb.execute("target remote 127.0.0.1:" + PORT)
        break
    except gdb.error:
        time.sleep(0.2)
else:
    raise SystemExit("hit-profile: no gdbstub on port " + PORT)
gdb.execute("break asm_exc_debug")
for n in range(HITS):
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    # #DB pushes no error code: the frame starts with the interrupted RIP.
    back = int(gdb.parse_and_eval("*(unsigned long *)$sp").cast(ulong))
    pc = int(gdb.parse_and_eval("$pc").cast(ulong))
    pcs = []
    while pc != back and len(pcs) < 200000:
        pcs.append(pc)	# the instruction that the next step executes
        gdb.execute("stepi", to_string=True)
        pc = int(gdb.parse_and_eval("$pc").cast(ulong))
    with open(os.path.join(OUT, "hit%d.txt" % n), "w") as f:
        f.write("".join("%x\n" % p for p in pcs))
    print("hit-profile: hit %d: %d instructions" % (n, len(pcs)))
gdb.execute("delete")
gdb.execute("detach")
