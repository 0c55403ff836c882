/* SPDX-License-Identifier: MIT */
/*
 * syscpu: the CPU the whole machine spends over a phase, per I/O, and the
 * part of it the kernel's own threads spend (issue 31).  A phase's
 * getrusage (tiobench's CPU%) sees only the benchmark's threads; work the
 * kernel does elsewhere (write-back and other kworkers, softirq, the block
 * layer's threads) is in no such number.
 *
 *  - busy: user + nice + system + irq + softirq of the "cpu" line of
 *    PROC/stat, summed over all CPUs (guest time is inside user; idle,
 *    iowait and steal are not busy);
 *  - kthread: utime + stime of every kernel thread (a task with
 *    PF_KTHREAD in its PROC/PID/stat flags, or whose parent is kthreadd,
 *    pid 2, and kthreadd itself, when pid 2 is kthreadd), matched by
 *    pid and start time between
 *    the two readings; a thread born during the phase counts whole, one
 *    that exited during it is lost (kworkers rarely exit mid-phase).
 *
 * Both in clock ticks (USER_HZ).  Results, for a phase whose results
 * start with PREFIX:
 *   PREFIX.sys_cpu_per_op  us   lower  busy time / the phase's ops
 *   PREFIX.kthread_share   %    none   kthread / busy (where the CPU
 *                                      went; moving work is no verdict)
 * The proc root is a parameter (NULL: /proc) so tests feed fake trees.
 */
#ifndef KLAB_SYSCPU_H
#define KLAB_SYSCPU_H

#include <stddef.h>
#include <stdint.h>

#include "lib/results.h"

/* Bit of /proc/PID/stat's flags field (include/linux/sched.h). */
#define SYSCPU_PF_KTHREAD 0x00200000u

struct syscpu_task {
	int pid;
	uint64_t start;		/* starttime, ticks since boot */
	uint64_t ticks;		/* utime + stime */
};

struct syscpu {
	int ok;			/* PROC/stat was read */
	uint64_t busy, total;
	struct syscpu_task *kt;	/* kernel threads, sorted by pid */
	size_t nkt, alloc;
};

struct syscpu_delta {
	uint64_t busy, total, kthread;	/* ticks over the phase */
};

/*
 * Read PROC/stat's cpu line: busy = user+nice+system+irq+softirq, total
 * = busy + idle + iowait + steal.  Returns 0, or -1 when it cannot be read
 * or has fewer than four numbers.
 */
int syscpu_stat_read(const char *proc, uint64_t *busy, uint64_t *total);

/*
 * Parse one PROC/PID/stat line.  *kthread is SYSCPU_KT_FLAG for a task
 * with PF_KTHREAD, SYSCPU_KT_PARENT for pid 2 or a child of it without
 * the flag (a kernel thread only when pid 2 is kthreadd: in a PID
 * namespace pid 2 is a user task), else 0.  Returns 0, or -1 on a
 * malformed line.
 */
enum { SYSCPU_KT_FLAG = 1, SYSCPU_KT_PARENT = 2 };
int syscpu_task_parse(const char *line, struct syscpu_task *t,
		      int *kthread);

/*
 * Take a reading (s zeroed by the caller or released before).  s->ok is
 * 0 when PROC/stat could not be read; an unreadable PROC/PID is skipped
 * (the task exited).  Returns 0 or -1 as s->ok says.
 */
int syscpu_read(struct syscpu *s, const char *proc);
void syscpu_release(struct syscpu *s);

/* b - a: the phase between two readings (a thread only in b counts
 * whole; counters that went back count 0). */
void syscpu_delta(const struct syscpu *a, const struct syscpu *b,
		  struct syscpu_delta *d);

/* 100 * busy / total: the machine's busy percent over the phase, 0..100
 * whatever the number of CPUs (iops.sys_cpu); 0 when no time passed. */
double syscpu_busy_pct(const struct syscpu_delta *d);

/*
 * Add PREFIX.sys_cpu_per_op and PREFIX.kthread_share for a phase of ops
 * I/Os (nothing when ops is 0).  hz is the ticks per second (0:
 * sysconf(_SC_CLK_TCK)).
 */
void syscpu_report(struct result_set *rs, const char *prefix,
		   const struct syscpu_delta *d, uint64_t ops, long hz);

/* The phase of a program: read at start, read at end, report, release. */
void syscpu_phase_end(struct result_set *rs, const char *prefix,
		      struct syscpu *start, uint64_t ops);

#endif
