/* SPDX-License-Identifier: MIT */
/*
 * cpuusage: the two CPU measures the workloads report.  The process's own
 * CPU time from getrusage (tiobench's CPU%: user+sys over wall time, can
 * pass 100% with several threads) and the whole machine's busy share from
 * /proc/stat (iops's system CPU%, 0..100 over all CPUs, interrupts and
 * softirqs included, which is where block I/O completion time goes).
 */
#ifndef KLAB_CPUUSAGE_H
#define KLAB_CPUUSAGE_H

#include <stdint.h>

struct cpu_rusage {
	double user, sys;	/* seconds */
};

struct cpu_stat {
	uint64_t busy, total;	/* jiffies summed over all CPUs */
};

void cpu_rusage_now(struct cpu_rusage *r);
/* 100 * (user+sys delta) / wall_s; 0 when wall_s is 0. */
double cpu_rusage_pct(const struct cpu_rusage *a, const struct cpu_rusage *b,
		      double wall_s);

/* Read the "cpu" line of /proc/stat; -1 when it cannot be read. */
int cpu_stat_read(struct cpu_stat *s);
/* Busy percent between two readings; 0 when no time passed. */
double cpu_stat_busy_pct(const struct cpu_stat *a, const struct cpu_stat *b);

/* Online CPUs, at least 1. */
unsigned cpu_count(void);

#endif
