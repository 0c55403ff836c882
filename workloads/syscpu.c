// SPDX-License-Identifier: MIT
/*
 * syscpu: the whole machine's CPU over a phase and the kernel threads'
 * part of it, from PROC/stat and PROC/PID/stat (see syscpu.h).
 */
#include "workloads/syscpu.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/alloc.h"
#include "workloads/wlcli.h"

static const char *proc_root(const char *proc)
{
	return proc && *proc ? proc : "/proc";
}

int syscpu_stat_read(const char *proc, uint64_t *busy, uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	char path[4096], line[512];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/stat", proc_root(proc));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	/* user nice system idle iowait irq softirq steal (guest, guest_nice
	 * are inside user and nice already) */
	n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		return -1;
	*busy = v[0] + v[1] + v[2] + v[5] + v[6];
	*total = *busy + v[3] + v[4] + v[7];
	return 0;
}

int syscpu_task_parse(const char *line, struct syscpu_task *t,
		      int *kthread)
{
	const char *close = strrchr(line, ')');
	unsigned long long utime, stime, start;
	unsigned flags;
	char state;
	int ppid;

	if (!close || !strchr(line, '(') || !isdigit((unsigned char)*line))
		return -1;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime */
	if (sscanf(close + 1, " %c %d %*d %*d %*d %*d %u %*u %*u %*u %*u "
		   "%llu %llu %*d %*d %*d %*d %*d %*d %llu", &state, &ppid,
		   &flags, &utime, &stime, &start) != 6)
		return -1;
	t->pid = (int)strtol(line, NULL, 10);
	t->ticks = utime + stime;
	t->start = start;
	*kthread = flags & SYSCPU_PF_KTHREAD ? SYSCPU_KT_FLAG :
		   ppid == 2 || t->pid == 2 ? SYSCPU_KT_PARENT : 0;
	return 0;
}

/* The kernel-thread class of PROC/NAME/stat (SYSCPU_KT_*), t filled;
 * -1 when it cannot be read (gone since the directory was read). */
static int read_task(const char *proc, const char *name,
		     struct syscpu_task *t)
{
	char path[4096], line[1024];
	int kthread = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/stat", proc, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f) ||
	    syscpu_task_parse(line, t, &kthread))
		kthread = -1;
	fclose(f);
	return kthread;
}

static int by_pid(const void *a, const void *b)
{
	const struct syscpu_task *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int syscpu_read(struct syscpu *s, const char *proc)
{
	struct syscpu_task t;
	struct dirent *e;
	int k, parent_ok;
	DIR *d;

	proc = proc_root(proc);
	s->nkt = 0;
	s->ok = syscpu_stat_read(proc, &s->busy, &s->total) == 0;
	if (!s->ok)
		return -1;
	d = opendir(proc);
	if (!d)
		return 0;	/* no tasks: the share is then 0 */
	/* pid 2's children are kernel threads when pid 2 is kthreadd */
	parent_ok = read_task(proc, "2", &t) == SYSCPU_KT_FLAG;
	for (e = readdir(d); e; e = readdir(d)) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    strspn(e->d_name, "0123456789") != strlen(e->d_name))
			continue;
		k = read_task(proc, e->d_name, &t);
		if (k == SYSCPU_KT_FLAG ||
		    (k == SYSCPU_KT_PARENT && parent_ok)) {
			ALLOC_GROW(s->kt, s->nkt, s->alloc);
			s->kt[s->nkt++] = t;
		}
	}
	closedir(d);
	if (s->nkt)
		qsort(s->kt, s->nkt, sizeof(*s->kt), by_pid);
	return 0;
}

void syscpu_release(struct syscpu *s)
{
	free(s->kt);
	memset(s, 0, sizeof(*s));
}

void syscpu_delta(const struct syscpu *a, const struct syscpu *b,
		  struct syscpu_delta *d)
{
	size_t i, j = 0;

	d->busy = b->busy > a->busy ? b->busy - a->busy : 0;
	d->total = b->total > a->total ? b->total - a->total : 0;
	d->kthread = 0;
	for (i = 0; i < b->nkt; i++) {
		const struct syscpu_task *t = &b->kt[i];

		while (j < a->nkt && a->kt[j].pid < t->pid)
			j++;
		if (j < a->nkt && a->kt[j].pid == t->pid &&
		    a->kt[j].start == t->start)
			d->kthread += t->ticks > a->kt[j].ticks ?
				      t->ticks - a->kt[j].ticks : 0;
		else
			d->kthread += t->ticks;	/* born in the phase */
	}
}

double syscpu_busy_pct(const struct syscpu_delta *d)
{
	return d->total ? 100.0 * (double)d->busy / (double)d->total : 0;
}

void syscpu_report(struct result_set *rs, const char *prefix,
		   const struct syscpu_delta *d, uint64_t ops, long hz)
{
	if (hz <= 0)
		hz = sysconf(_SC_CLK_TCK);
	if (!ops || hz <= 0)
		return;
	wl_result(rs, prefix, "sys_cpu_per_op", "us",
		  (double)d->busy * 1e6 / (double)hz / (double)ops, DIR_LOWER);
	wl_result(rs, prefix, "kthread_share", "%", d->busy ?
		  100.0 * (double)d->kthread / (double)d->busy : 0, DIR_NONE);
}

void syscpu_phase_end(struct result_set *rs, const char *prefix,
		      struct syscpu *start, uint64_t ops)
{
	struct syscpu end = { 0 };
	struct syscpu_delta d;

	if (start->ok && syscpu_read(&end, NULL) == 0) {
		syscpu_delta(start, &end, &d);
		syscpu_report(rs, prefix, &d, ops, 0);
	}
	syscpu_release(&end);
	syscpu_release(start);
}
