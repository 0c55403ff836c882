// SPDX-License-Identifier: MIT
/*
 * cpuusage: getrusage and /proc/stat readings (see cpuusage.h).
 */
#include "workloads/cpuusage.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

void cpu_rusage_now(struct cpu_rusage *r)
{
	struct rusage ru;

	memset(&ru, 0, sizeof(ru));
	getrusage(RUSAGE_SELF, &ru);
	r->user = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->sys = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

double cpu_rusage_pct(const struct cpu_rusage *a, const struct cpu_rusage *b,
		      double wall_s)
{
	double used = (b->user - a->user) + (b->sys - a->sys);

	if (wall_s <= 0)
		return 0.0;
	return used > 0 ? 100.0 * used / wall_s : 0.0;
}

int cpu_stat_read(struct cpu_stat *s)
{
	unsigned long long v[10] = { 0 };
	char line[512];
	FILE *f;
	int n, i;

	f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
		   "%llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
		   &v[7], &v[8], &v[9]);
	if (n < 4)
		return -1;
	/* user nice system idle iowait irq softirq steal (guest is in user) */
	s->total = 0;
	for (i = 0; i < 8 && i < n; i++)
		s->total += v[i];
	s->busy = s->total - v[3] - v[4];
	return 0;
}

double cpu_stat_busy_pct(const struct cpu_stat *a, const struct cpu_stat *b)
{
	uint64_t dt = b->total - a->total;

	if (b->total <= a->total || b->busy < a->busy)
		return 0.0;
	return 100.0 * (double)(b->busy - a->busy) / (double)dt;
}

unsigned cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}
