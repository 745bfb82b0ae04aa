#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make-fields-fixture.py - write ksym-fields.dat (or, with --trigger,
ksym-trigger.dat), a synthetic trace.dat whose ksym:ksym_hit has the caller
and sym fields.

  make-fields-fixture.py [OUT.dat]            (default: ksym-fields.dat beside this)
  make-fields-fixture.py --trigger [OUT.dat]  (default: ksym-trigger.dat beside this)

Not recorded by a kernel: the other fixtures are (record-fixtures.sh, in the
VM), and they predate the two fields. This file lets the headless test check
the plugin's use of them on the host. It is a trace-cmd version 6 file
(Documentation/trace-cmd/trace-cmd.dat.v6.5 in trace-cmd): the event's
format is the kernel's (include/trace/events/ksym.h: caller after value,
before the byte fields, then "__data_loc char[] sym" at 68), the records are
ring buffer pages as trace_pipe_raw gives them, one page per CPU, and
kallsyms is a small made-up table. Output is deterministic. The hits
(test_ksym_hits.c expects them):

  tasklist_lock -w-          CPU 0 pid 100: 3 by release_task, 2 by
                             copy_process, all with ip in do_raw_write_lock
  pid_max -w-                CPU 1 pid 101: 1 by do_proc_dointvec_minmax_conv
  runqueues.nr_running rw-   per-CPU: CPU 0 pid 100 and CPU 1 pid 101, each
                             at its own copy's address, by enqueue_task_fair
                             and dequeue_task_fair (2 + 2)
  init_task.flags rw-        CPU 1 pid 101: 2 by do_exit (a field: its
                             address is init_task+0x2c)

ksym-trigger.dat: the hits of a dynamic watch, as the kernel writes them for
"ksym_watch:obj.count:-w-" on ksym_hitgen:ksym_hitgen_obj_alloc and the
object scenario (echo 3 > /sys/kernel/debug/ksym_hitgen/object, one object
at a time), beside a static watch:

  ksym_hitgen_obj.count -w-  3 objects, 3 writes each (values 1, 2, 3) by
                             ksym_hitgen_obj_write: object 1 on CPU 0 pid 140
                             at 0xff11000003a1c5a8, object 2 on CPU 1 pid 141
                             at 0xff11000003a1d0a8, object 3 on CPU 0 pid 140
                             at 0xff11000003a1c5a8 again (object 1's memory,
                             freed and allocated anew)
  ksym_hitgen_var -w-        CPU 1 pid 141: 2 by ksym_hitgen_write_a (1, 2)
"""
import os
import struct
import sys

PAGE = 4096
EVENT_ID = 421
TS0 = 30_000_000_000  # 30 s

HEADER_PAGE = """\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;
"""

HEADER_EVENT = """# compressed entry header
\ttype_len    :    5 bits
\ttime_delta  :   27 bits
\tarray       :   32 bits

\tpadding     : type == 29
\ttime_extend : type == 30
\ttime_stamp : type == 31
\tdata max type_len  == 28
"""

# ksym_hit as include/trace/events/ksym.h defines it with caller and sym.
FORMAT = """name: ksym_hit
ID: %d
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;
\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;
\tfield:unsigned long sp;\toffset:24;\tsize:8;\tsigned:0;
\tfield:unsigned long bp;\toffset:32;\tsize:8;\tsigned:0;
\tfield:unsigned long flags;\toffset:40;\tsize:8;\tsigned:0;
\tfield:u64 value;\toffset:48;\tsize:8;\tsigned:0;
\tfield:unsigned long caller;\toffset:56;\tsize:8;\tsigned:0;
\tfield:u8 len;\toffset:64;\tsize:1;\tsigned:0;
\tfield:u8 access;\toffset:65;\tsize:1;\tsigned:0;
\tfield:u8 has_value;\toffset:66;\tsize:1;\tsigned:0;
\tfield:__data_loc char[] sym;\toffset:68;\tsize:4;\tsigned:0;

print fmt: "%%s %%s ip=%%pS caller=%%pS value=%%s0x%%llx addr=%%lx sp=%%lx rbp=%%lx flags=%%lx", __get_str(sym), __print_symbolic(REC->access, { 1, "r--" }, { 2, "-w-" }, { 3, "rw-" }, { 4, "--x" }), (void *)REC->ip, (void *)REC->caller, REC->has_value ? "" : "unread:", REC->value, REC->addr, REC->sp, REC->bp, REC->flags
""" % EVENT_ID
FIXED = 72  # the record up to and with sym's __data_loc word

SYMS = {
    "copy_process": 0xffffffff810a1000,
    "release_task": 0xffffffff810a5000,
    "do_exit": 0xffffffff810a6000,
    "enqueue_task_fair": 0xffffffff810d2000,
    "dequeue_task_fair": 0xffffffff810d3000,
    "do_proc_dointvec_minmax_conv": 0xffffffff810f1000,
    "do_raw_write_lock": 0xffffffff81112000,
    "do_raw_write_unlock": 0xffffffff81112100,
    "init_task": 0xffffffff82a0c940,
    "tasklist_lock": 0xffffffff82a05040,
    "pid_max": 0xffffffff82b3e1e8,
    "runqueues": 0x0000000000032a40,
}
KALLSYMS = "".join("%016x %s %s\n" % (a, "A" if a < 1 << 32 else
                                      "T" if a < 0xffffffff82000000 else "D", n)
                   for n, a in sorted(SYMS.items(), key=lambda s: s[1]))
PERCPU = [0xff11000007c32a40, 0xff11000007d32a40]  # runqueues on CPU 0, 1

# ksym-trigger.dat: the hit generator's symbols, as a module's in kallsyms.
MOD_SYMS = {
    "ksym_hitgen_write_a": 0xffffffffc0a01010,
    "ksym_hitgen_obj_write": 0xffffffffc0a01350,
    "ksym_hitgen_var": 0xffffffffc0a05400,
}
MOD_KALLSYMS = "".join("%016x %s %s\t[ksym_hitgen]\n"
                       % (a, "t" if n.endswith(("_a", "_write")) else "b", n)
                       for n, a in sorted(MOD_SYMS.items(), key=lambda s: s[1]))

R, W = 1, 2


def hit(ts_ms, pid, sym, addr, access, ln, value, caller, ip=None):
    syms = dict(SYMS, **MOD_SYMS)
    return dict(ts=TS0 + ts_ms * 1_000_000, pid=pid, sym=sym, addr=addr,
                access=access, len=ln, value=value,
                caller=syms[caller[0]] + caller[1],
                ip=syms[ip[0]] + ip[1] if ip else syms[caller[0]] + caller[1])


TL = SYMS["tasklist_lock"]
LOCK = ("do_raw_write_lock", 0x2c)
NR = "runqueues.nr_running"
HITS = {
    0: [
        hit(1, 100, "tasklist_lock", TL, W, 8, 0xff, ("release_task", 0x6b), LOCK),
        hit(2, 100, NR, PERCPU[0] + 4, R | W, 4, 1, ("enqueue_task_fair", 0x1a2)),
        hit(3, 100, "tasklist_lock", TL, W, 8, 0xff, ("copy_process", 0x8d2), LOCK),
        hit(4, 100, "tasklist_lock", TL, W, 8, 0xff, ("release_task", 0x6b), LOCK),
        hit(5, 100, NR, PERCPU[0] + 4, R | W, 4, 0, ("dequeue_task_fair", 0x97)),
        hit(6, 100, "tasklist_lock", TL, W, 8, 0xff, ("copy_process", 0x8d2), LOCK),
        hit(7, 100, "tasklist_lock", TL, W, 8, 0xff, ("release_task", 0x6b), LOCK),
    ],
    1: [
        hit(2, 101, "pid_max", SYMS["pid_max"], W, 4, 4000,
            ("do_proc_dointvec_minmax_conv", 0x58)),
        hit(3, 101, NR, PERCPU[1] + 4, R | W, 4, 1, ("enqueue_task_fair", 0x1a2)),
        hit(4, 101, "init_task.flags", SYMS["init_task"] + 0x2c, R | W, 4,
            0x200000, ("do_exit", 0x31)),
        hit(5, 101, NR, PERCPU[1] + 4, R | W, 4, 0, ("dequeue_task_fair", 0x97)),
        hit(6, 101, "init_task.flags", SYMS["init_task"] + 0x2c, R | W, 4,
            0x200004, ("do_exit", 0x31)),
    ],
}


# ksym_watch:obj.count:-w-: the watched word is count, 8 bytes into a
# struct ksym_hitgen_obj; object 3 got object 1's memory back.
OBJ = [0xff11000003a1c5a0 + 8, 0xff11000003a1d0a0 + 8, 0xff11000003a1c5a0 + 8]
OC = "ksym_hitgen_obj.count"
OW = ("ksym_hitgen_obj_write", 0x1c)


def obj_hits(ts_ms, pid, n):
    return [hit(ts_ms + i, pid, OC, OBJ[n], W, 8, i + 1, OW) for i in range(3)]


TRIGGER_HITS = {
    0: obj_hits(1, 140, 0) + obj_hits(10, 140, 2),
    1: [hit(4, 141, "ksym_hitgen_var", MOD_SYMS["ksym_hitgen_var"], W, 8, 1,
            ("ksym_hitgen_write_a", 0x13)),
        hit(5, 141, "ksym_hitgen_var", MOD_SYMS["ksym_hitgen_var"], W, 8, 2,
            ("ksym_hitgen_write_a", 0x13))] + obj_hits(6, 141, 1),
}


def record(h):
    sym = h["sym"].encode() + b"\0"
    data = struct.pack("<HBBi", EVENT_ID, 0x1, 1, h["pid"])
    data += struct.pack("<QQQQQQQBBB", h["addr"], h["ip"], 0xffa0000000223d78,
                        1, 0x206, h["value"], h["caller"], h["len"],
                        h["access"], 1)
    data += b"\0" * (68 - len(data))
    data += struct.pack("<I", len(sym) << 16 | FIXED)
    assert len(data) == FIXED
    data += sym
    data += b"\0" * (-len(data) % 4)
    assert len(data) <= 28 * 4
    return data


def page(hits):
    body = b""
    prev = hits[0]["ts"]
    for h in hits:
        delta = h["ts"] - prev
        assert 0 <= delta < 1 << 27
        data = record(h)
        body += struct.pack("<I", len(data) // 4 | delta << 5) + data
        prev = h["ts"]
    out = struct.pack("<Qq", hits[0]["ts"], len(body)) + body
    return out + b"\0" * (PAGE - len(out))


def main():
    args = sys.argv[1:]
    trigger = bool(args) and args[0] == "--trigger"
    if trigger:
        args = args[1:]
        hits, kallsyms = TRIGGER_HITS, MOD_KALLSYMS
        cmdlines = b"140 sh\n141 sh\n"
    else:
        hits, kallsyms = HITS, KALLSYMS
        cmdlines = b"100 kworker/0:1\n101 sysctl\n"
    out = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)),
        "ksym-trigger.dat" if trigger else "ksym-fields.dat")

    def s8(b):
        return struct.pack("<Q", len(b)) + b

    f = b"\x17\x08\x44tracing6\0" + struct.pack("<BBI", 0, 8, PAGE)
    f += b"header_page\0" + s8(HEADER_PAGE.encode())
    f += b"header_event\0" + s8(HEADER_EVENT.encode())
    f += struct.pack("<I", 0)                       # ftrace events
    f += struct.pack("<I", 1) + b"ksym\0" + struct.pack("<I", 1) + s8(FORMAT.encode())
    f += struct.pack("<I", len(kallsyms)) + kallsyms.encode()
    f += struct.pack("<I", 0)                       # trace_printk formats
    f += s8(cmdlines)                               # saved cmdlines
    f += struct.pack("<I", len(hits))
    f += b"options  \0" + struct.pack("<H", 0)       # no options
    f += b"flyrecord\0"
    start = -(-(len(f) + 16 * len(hits)) // PAGE) * PAGE
    for cpu in sorted(hits):
        f += struct.pack("<QQ", start + cpu * PAGE, PAGE)
    f += b"\0" * (start - len(f))
    for cpu in sorted(hits):
        f += page(hits[cpu])
    with open(out, "wb") as fd:
        fd.write(f)


if __name__ == "__main__":
    main()
