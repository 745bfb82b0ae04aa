#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make-fields-fixture.py - write ksym-fields.dat (or, with --trigger,
ksym-trigger.dat; with --values, ksym-values.dat), a synthetic trace.dat
whose ksym:ksym_hit has the caller and sym fields (--values: and old and
has_old, and the ksym_stack format).

  make-fields-fixture.py [OUT.dat]            (default: ksym-fields.dat beside this)
  make-fields-fixture.py --trigger [OUT.dat]  (default: ksym-trigger.dat beside this)
  make-fields-fixture.py --values [OUT.dat]   (default: ksym-values.dat beside this)

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

ksym-values.dat: ksym_hit with the value before the access, old, and how it
is known, has_old (0 none, 1 read before the access, 2 the last value seen,
3 that but stale), after value: old at 56, caller at 64, the byte fields
from 72 (has_old at 75), sym at 76. The print format is the one ksym.h
prints, its nested conditional parenthesized (libtraceevent 1.7 misreads
it without). Values are old -> new:

  total_forks -w-/8          CPU 0 pid 100 by copy_process: 41 -> 42 (last),
                             42 -> 43 (stale), 43 -> 43 (read)
  init_task.flags rw-/4      CPU 1 pid 101 by do_exit: 0x200000 -> 0x200000
                             (read: a read, though it is the first hit),
                             0x200000 -> 0x200004 (read: a write), 0x200000
                             -> 0x200004 (stale: a write, though the previous
                             hit left 0x200004), none -> 0x200004 (compared
                             with the previous hit: a read)
  runqueues.nr_running rw-/4 per-CPU by enqueue_task_fair: CPU 0 pid 100
                             has_old 9 (not the kernel's: unknown, the first
                             hit at its copy), CPU 1 pid 101 1 -> 2 (read)
  do_exit --x/8              CPU 0 pid 100: no value, no old (none)
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

# ksym_hit with old and has_old (--values).
FORMAT_VALUES = """name: ksym_hit
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
\tfield:u64 old;\toffset:56;\tsize:8;\tsigned:0;
\tfield:unsigned long caller;\toffset:64;\tsize:8;\tsigned:0;
\tfield:u8 len;\toffset:72;\tsize:1;\tsigned:0;
\tfield:u8 access;\toffset:73;\tsize:1;\tsigned:0;
\tfield:u8 has_value;\toffset:74;\tsize:1;\tsigned:0;
\tfield:u8 has_old;\toffset:75;\tsize:1;\tsigned:0;
\tfield:__data_loc char[] sym;\toffset:76;\tsize:4;\tsigned:0;

print fmt: "%%s %%s ip=%%pS caller=%%pS value=%%s0x%%llx old=%%s0x%%llx addr=%%lx sp=%%lx rbp=%%lx flags=%%lx", __get_str(sym), __print_symbolic(REC->access, { 1, "r--" }, { 2, "-w-" }, { 3, "rw-" }, { 4, "--x" }), (void *)REC->ip, (void *)REC->caller, REC->has_value ? "" : "unread:", REC->value, (REC->has_old == 0) ? "none:" : ((REC->has_old == 3) ? "stale:" : ""), REC->old, REC->addr, REC->sp, REC->bp, REC->flags
""" % EVENT_ID
FIXED_VALUES = 80

# ksym_stack as ksym.h defines it: in ksym-values.dat, as a format only (the
# fuzzers' seeds make its records).
STACK_FORMAT = """name: ksym_stack
ID: %d
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:unsigned int nr;\toffset:8;\tsize:4;\tsigned:0;
\tfield:__data_loc unsigned long[] ips;\toffset:12;\tsize:4;\tsigned:0;

print fmt: "%%s", ksym_print_stack(p, __get_dynamic_array(ips), REC->nr)
""" % (EVENT_ID + 1)

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


def kallsyms_text(syms):
    return "".join("%016x %s %s\n" % (a, "A" if a < 1 << 32 else
                                     "T" if a < 0xffffffff82000000 else "D", n)
                   for n, a in sorted(syms.items(), key=lambda s: s[1]))


KALLSYMS = kallsyms_text(SYMS)
# ksym-values.dat: total_forks too
VALUES_SYMS = dict(SYMS, total_forks=0xffffffff82b41100)
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

R, W, X = 1, 2, 4
NONE, READ, LAST, STALE = 0, 1, 2, 3


def hit(ts_ms, pid, sym, addr, access, ln, value, caller, ip=None,
        old=0, has_old=NONE, has_value=1):
    syms = dict(SYMS, **MOD_SYMS)
    return dict(ts=TS0 + ts_ms * 1_000_000, pid=pid, sym=sym, addr=addr,
                access=access, len=ln, value=value,
                caller=syms[caller[0]] + caller[1],
                ip=syms[ip[0]] + ip[1] if ip else syms[caller[0]] + caller[1],
                old=old, has_old=has_old, has_value=has_value)


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


# ksym-values.dat: see the docstring.
FA = ("init_task.flags", SYMS["init_task"] + 0x2c)
EXIT = ("do_exit", 0x31)
ENQ = ("enqueue_task_fair", 0x1a2)
VALUES_HITS = {
    0: [
        hit(1, 100, "total_forks", VALUES_SYMS["total_forks"], W, 8, 42,
            ("copy_process", 0x8d2), old=41, has_old=LAST),
        hit(2, 100, NR, PERCPU[0] + 4, R | W, 4, 1, ENQ, old=7, has_old=9),
        hit(3, 100, "total_forks", VALUES_SYMS["total_forks"], W, 8, 43,
            ("copy_process", 0x8d2), old=42, has_old=STALE),
        hit(4, 100, "do_exit", SYMS["do_exit"], X, 8, 0, ("do_exit", 0),
            has_value=0),
        hit(5, 100, "total_forks", VALUES_SYMS["total_forks"], W, 8, 43,
            ("copy_process", 0x8d2), old=43, has_old=READ),
    ],
    1: [
        hit(2, 101, FA[0], FA[1], R | W, 4, 0x200000, EXIT, old=0x200000,
            has_old=READ),
        hit(3, 101, FA[0], FA[1], R | W, 4, 0x200004, EXIT, old=0x200000,
            has_old=READ),
        hit(4, 101, NR, PERCPU[1] + 4, R | W, 4, 2, ENQ, old=1, has_old=READ),
        hit(5, 101, FA[0], FA[1], R | W, 4, 0x200004, EXIT, old=0x200000,
            has_old=STALE),
        hit(6, 101, FA[0], FA[1], R | W, 4, 0x200004, EXIT),
    ],
}


def record(h, values=False):
    sym = h["sym"].encode() + b"\0"
    fixed = FIXED_VALUES if values else FIXED
    data = struct.pack("<HBBi", EVENT_ID, 0x1, 1, h["pid"])
    data += struct.pack("<QQQQQQ", h["addr"], h["ip"], 0xffa0000000223d78,
                        1, 0x206, h["value"])
    if values:
        data += struct.pack("<QQBBBB", h["old"], h["caller"], h["len"],
                            h["access"], h["has_value"], h["has_old"])
    else:
        data += struct.pack("<QBBB", h["caller"], h["len"], h["access"],
                            h["has_value"])
    data += b"\0" * (fixed - 4 - len(data))
    data += struct.pack("<I", len(sym) << 16 | fixed)
    assert len(data) == fixed
    data += sym
    data += b"\0" * (-len(data) % 4)
    assert len(data) <= 28 * 4
    return data


def page(hits, values):
    body = b""
    prev = hits[0]["ts"]
    for h in hits:
        delta = h["ts"] - prev
        assert 0 <= delta < 1 << 27
        data = record(h, values)
        body += struct.pack("<I", len(data) // 4 | delta << 5) + data
        prev = h["ts"]
    out = struct.pack("<Qq", hits[0]["ts"], len(body)) + body
    return out + b"\0" * (PAGE - len(out))


def main():
    args = sys.argv[1:]
    mode = args[0] if args and args[0] in ("--trigger", "--values") else None
    values = mode == "--values"
    fmts = [FORMAT_VALUES, STACK_FORMAT] if values else [FORMAT]
    if mode:
        args = args[1:]
    if mode == "--trigger":
        hits, kallsyms = TRIGGER_HITS, MOD_KALLSYMS
        cmdlines = b"140 sh\n141 sh\n"
    else:
        hits = VALUES_HITS if values else HITS
        kallsyms = kallsyms_text(VALUES_SYMS) if values else KALLSYMS
        cmdlines = b"100 kworker/0:1\n101 sysctl\n"
    out = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)),
        {"--trigger": "ksym-trigger.dat", "--values": "ksym-values.dat"}.get(
            mode, "ksym-fields.dat"))

    def s8(b):
        return struct.pack("<Q", len(b)) + b

    f = b"\x17\x08\x44tracing6\0" + struct.pack("<BBI", 0, 8, PAGE)
    f += b"header_page\0" + s8(HEADER_PAGE.encode())
    f += b"header_event\0" + s8(HEADER_EVENT.encode())
    f += struct.pack("<I", 0)                       # ftrace events
    f += struct.pack("<I", 1) + b"ksym\0" + struct.pack("<I", len(fmts))
    f += b"".join(s8(fmt.encode()) for fmt in fmts)
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
        f += page(hits[cpu], values)
    with open(out, "wb") as fd:
        fd.write(f)


if __name__ == "__main__":
    main()
