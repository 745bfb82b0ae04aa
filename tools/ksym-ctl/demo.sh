#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# demo.sh - what "make run" shows in the VM (installed as /ksym-ctl-demo.sh,
# run by /init with ksym.mode=run): ksym-ctl recording who writes two real
# kernel variables, pid_max (a sysctl) and total_forks (every fork), while
# a small workload forks processes and writes sysctls; then the report with
# its call paths, a few raw trace lines, and a stat of one known write.
set -u
cd /tmp || exit 1

say() { printf '\n==== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

cat > /tmp/workload.sh << 'WORK'
#!/bin/sh
# Fork a few shells, run a pipeline, write the pid_max sysctl three ways.
old=$(cat /proc/sys/kernel/pid_max)
for i in 1 2 3 4 5; do
	sh -c 'true' &
done
wait
ls /proc | grep -c '^[0-9]' > /dev/null
echo 4000 > /proc/sys/kernel/pid_max
sysctl -w kernel.pid_max=5000 > /dev/null
echo "$old" > /proc/sys/kernel/pid_max
WORK

say "ksym-ctl record: who writes pid_max and total_forks while the workload runs"
run ksym-ctl record --stack -o /tmp/ksym.dat pid_max/4:-w- total_forks/8:-w- -- \
	sh /tmp/workload.sh || echo "KSYM-RUN-ERROR: ksym-ctl record failed"

say "ksym-ctl report -g: per variable, its writers, and the call paths to them"
run ksym-ctl report -g -i /tmp/ksym.dat || echo "KSYM-RUN-ERROR: ksym-ctl report failed"

say "trace-cmd report: the first hits as trace lines (with their callchain)"
trace-cmd report -i /tmp/ksym.dat 2> /dev/null | grep -A4 'ksym_hit:' | head -n 15

say "ksym-ctl stat: one write of the sysctl is one hit"
old=$(cat /proc/sys/kernel/pid_max)
run ksym-ctl stat pid_max/4:-w- -- sh -c 'echo 4000 > /proc/sys/kernel/pid_max' ||
	echo "KSYM-RUN-ERROR: ksym-ctl stat failed"
echo "$old" > /proc/sys/kernel/pid_max

say "tracefs is as it was: watches '$(cat /sys/kernel/tracing/ksym_trace_filter)'," \
	"instances '$(ls /sys/kernel/tracing/instances)'"
