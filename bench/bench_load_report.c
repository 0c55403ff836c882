// SPDX-License-Identifier: MIT
/*
 * bench_load's figures: every answer's latency by endpoint, klabd's
 * VmRSS, threads and descriptors from /proc every 5 s into SAMPLES, and
 * the table printed at the end (n, rate, p50, p99, max in ms, errors).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_load.h"

void stat_add(enum ep ep, double ms)
{
	struct stat_ep *s = &L.st[ep];

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 1024;
		s->ms = realloc(s->ms, s->alloc * sizeof(*s->ms));
		if (!s->ms)
			abort();
	}
	s->ms[s->n++] = ms;
}

/* ---- klabd from /proc ----------------------------------------------- */

static long proc_status(const char *field)
{
	char path[64], line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", L.pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

static long proc_fds(void)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%ld/fd", L.pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	for (e = readdir(dir); e; e = readdir(dir))
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

void sample(double t)
{
	if (!L.samples_f)
		return;
	fprintf(L.samples_f, "%.0f,%ld,%ld,%ld,%lu,%lu\n", t - L.start,
		proc_status("VmRSS"), proc_status("Threads"), proc_fds(),
		(unsigned long)L.st[EP_RESULTS].n, L.acked_n);
	fflush(L.samples_f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.5);

	return n ? v[i >= n ? n - 1 : i > 0 ? i - 1 : 0] : NAN;
}

/* "\tX" with PREC decimals, or "\t-" for a figure that has none. */
static void put_fig(double x, int prec)
{
	if (isnan(x))
		fputs("\t-", stdout);
	else
		printf("\t%.*f", prec, x);
}

unsigned long report(double secs)
{
	unsigned long errors = 0;
	int e;

	printf("endpoint\tn\tper_s\tp50_ms\tp99_ms\tmax_ms\terrors\n");
	for (e = 0; e < EP_N; e++) {
		struct stat_ep *s = &L.st[e];

		qsort(s->ms, s->n, sizeof(*s->ms), cmp_double);
		errors += s->errors;
		printf("%s\t%zu", ep_name[e], s->n);
		/* the operators queue their jobs once, at the start: no rate */
		put_fig(e == EP_JOBS ? NAN : (double)s->n / secs, 2);
		put_fig(quantile(s->ms, s->n, 0.5), 1);
		put_fig(quantile(s->ms, s->n, 0.99), 1);
		put_fig(s->n ? s->ms[s->n - 1] : NAN, 1);
		printf("\t%lu\n", s->errors);
	}
	printf("acked uploads\t%lu\n", L.acked_n);
	printf("downloaded\t%.1f MB/s\n", (double)L.file_bytes / secs / 1e6);
	printf("boot files\t%lu downloaded, %lu held (agent cache)\n",
	       L.downloads, L.cache_hits);
	return errors;
}

