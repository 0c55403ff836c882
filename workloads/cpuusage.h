/* SPDX-License-Identifier: MIT */
/*
 * cpuusage: the process's own CPU time from getrusage (tiobench's CPU%:
 * user+sys over wall time, can pass 100% with several threads) and the
 * number of CPUs.  The whole machine's CPU (/proc/stat, interrupts and
 * softirqs included, which is where block I/O completion time goes, and
 * the kernel threads' part of it) is workloads/syscpu.h's.
 */
#ifndef KLAB_CPUUSAGE_H
#define KLAB_CPUUSAGE_H

struct cpu_rusage {
	double user, sys;	/* seconds */
};

void cpu_rusage_now(struct cpu_rusage *r);
/* 100 * (user+sys delta) / wall_s; 0 when wall_s is 0. */
double cpu_rusage_pct(const struct cpu_rusage *a, const struct cpu_rusage *b,
		      double wall_s);

/* Online CPUs, at least 1. */
unsigned cpu_count(void);

#endif
