#!/bin/sh
# Runs a command at the lowest CPU priority, for work that should only take what the rest leaves (.ci/run's
# image build beside the tests). `nice -n 19` alone is not that on a Linux that groups processes by session
# (autogroup, /proc/sys/kernel/sched_autogroup_enabled = 1, Debian's default): the CPU is shared between
# sessions first, and nice counts only within one, so a command started by `setsid nice -n 19` took half of
# the two cores from the tests (docs/testing.md#how-long-ci-takes). Its session's own nice value is set too,
# where the kernel has one.
echo 19 > /proc/self/autogroup 2>/dev/null || true
exec nice -n 19 "$@"
