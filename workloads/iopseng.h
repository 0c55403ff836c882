/* SPDX-License-Identifier: MIT */
/*
 * iopseng: the two I/O engines of the iops program.  Each worker thread
 * issues small random reads or writes over every disk of the run: psync
 * (one pread/pwrite at a time) or io_uring (queue depth qd, registered
 * files and buffers) when klab was built with liburing and the kernel
 * allows it.  Completions count only while the run's measuring flag is
 * set, so warm-up and drain time stay out of the numbers.
 */
#ifndef KLAB_IOPSENG_H
#define KLAB_IOPSENG_H

#include <pthread.h>
#include <stdint.h>

#include "workloads/hist.h"

struct iops_disk {
	char *file;	/* path opened */
	char *name;	/* metric name part: "sdb", "loop0" */
	int fd;
	uint64_t nblk;	/* blocks of bs in the region */
};

struct iops_shared {
	struct iops_disk *disk;
	unsigned ndisk;
	uint64_t bs;
	unsigned qd;
	int write;
	volatile int measuring;	/* completions count while set */
	volatile int stop;	/* workers finish their in-flight I/O, exit */
};

struct iops_worker {
	pthread_t tid;
	struct iops_shared *sh;
	int cpu;		/* pinned to this CPU, -1 for none */
	int uring;		/* use io_uring (else psync) */
	uint64_t rng;
	uint64_t ops;		/* measured completions */
	uint64_t *dev_ops;	/* per disk */
	struct hist h;
};

/* 1 when built with liburing. */
int iopseng_have_uring(void);
/*
 * Probe io_uring with a ring of qd entries: 0 when usable, else -errno
 * (ENOSYS on old kernels, EPERM when disabled by sysctl).
 */
int iopseng_uring_probe(unsigned qd);
/* The worker thread body (pthread start routine). */
void *iopseng_run(void *arg);

#endif
