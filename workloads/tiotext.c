// SPDX-License-Identifier: MIT
/*
 * tiotext: tiobench.pl's report layout, reproduced column for column from
 * reports posted to linux-kernel (see tiotext.h).
 */
#include "workloads/tiotext.h"

#include <stdio.h>
#include <string.h>

static const char units[] =
	"Unit information\n"
	"================\n"
	"File size = megabytes\n"
	"Blk Size  = bytes\n"
	"Rate      = megabytes per second\n"
	"CPU%      = percentage of CPU used during the test\n"
	"Latency   = milliseconds\n"
	"Lat%      = percent of requests that took longer than X seconds\n"
	"CPU Eff   = Rate divided by CPU% - throughput per cpu load\n";

static const char header[] =
	"                              File  Blk   Num                   Avg"
	"      Maximum      Lat%     Lat%    CPU\n"
	"Identifier                    Size  Size  Thr   Rate  (CPU%)  Latency"
	"    Latency      >2s      >10s    Eff\n"
	"---------------------------- ------ ----- ---  ------ ------ ---------"
	" -----------  -------- -------- -----\n";

/* The value of metric "tiobench.<phase>.<field>"; 0 when absent. */
static int get(const struct result_set *rs, const char *phase,
	       const char *field, double *v)
{
	char name[128];
	size_t i;

	snprintf(name, sizeof(name), "tiobench.%s.%s", phase, field);
	for (i = 0; i < rs->n; i++) {
		if (strcmp(rs->v[i].metric, name) == 0) {
			*v = rs->v[i].value;
			return 1;
		}
	}
	*v = 0;
	return 0;
}

static void format_row(struct strbuf *sb, const struct result_set *rs,
		       const char *phase, const char *id)
{
	double v[TIOBENCH_NFIELDS], cpu;
	int cpu_dec, f;

	for (f = 0; f < TIOBENCH_NFIELDS; f++)
		get(rs, phase, tiobench_fields[f].key, &v[f]);
	cpu = v[TF_CPU];
	/* CPU% in five characters, as tiobench printed it: 5.251 28.50 114.6 */
	cpu_dec = cpu < 9.9995 ? 3 : cpu < 99.995 ? 2 : cpu < 999.95 ? 1 : 0;
	/* tiobench.pl's "%-30s%-6d%-5d%4d%8.2f..." with a blank kept
	 * between columns when a value outgrows its width */
	sb_addf(sb, "%-29s %-5.0f %-5.0f %3.0f %7.2f %.*f%% %9.3f %11.2f "
		"%9.5f %8.5f %5.0f\n", id, v[TF_FILE_SIZE], v[TF_BLK_SIZE],
		v[TF_THREADS], v[TF_RATE], cpu_dec, cpu, v[TF_AVG_LAT],
		v[TF_MAX_LAT], v[TF_LAT_2S], v[TF_LAT_10S], v[TF_CPU_EFF]);
}

int tiotext_format(struct strbuf *sb, const struct result_set *rs,
		   const char *id)
{
	double v;
	int i, n = 0;

	sb_adds(sb, units);
	for (i = 0; i < TIO_NPHASES; i++) {
		if (!get(rs, tiobench_phases[i].key,
			 tiobench_fields[TF_RATE].key, &v))
			continue;
		sb_addf(sb, "\n%s\n%s", tiobench_phases[i].title, header);
		format_row(sb, rs, tiobench_phases[i].key, id);
		n++;
	}
	return n;
}
