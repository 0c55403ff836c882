// SPDX-License-Identifier: MIT
/*
 * cpuusage: getrusage readings and the CPU count (see cpuusage.h).
 */
#include "workloads/cpuusage.h"

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

unsigned cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}
