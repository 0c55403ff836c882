// SPDX-License-Identifier: MIT
/*
 * Shared formats of the text report and the compare page: the tiobench
 * table shape (copied from tiobench.pl's output so pasted tables look like
 * the ones kernel developers have posted for twenty years), number, delta
 * and p-value formats, the verdict counts behind the summary line, and
 * the name of a job configuration.
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert((int)TC_NCOLS == (int)TIOBENCH_NFIELDS &&
	       (int)TC_CPU_EFF == (int)TF_CPU_EFF,
	       "tio_cols follow lib/tiobench.h's fields");

const struct tio_col_spec tio_cols[TC_NCOLS] = {
	[TC_FILE_SIZE] = { "File", "Size", NULL, 0 },
	[TC_BLK_SIZE] = { "Blk", "Size", NULL, 0 },
	[TC_THREADS] = { "Num", "Thr", NULL, 0 },
	[TC_RATE] = { "", "Rate", "rate", 1 },
	[TC_CPU] = { "", "(CPU%)", "cpu", 1 },
	[TC_AVG_LAT] = { "Avg", "Latency", "avg lat", 1 },
	[TC_MAX_LAT] = { "Maximum", "Latency", "max lat", 1 },
	[TC_LAT_2S] = { "Lat%", ">2s", "lat>2s", 0 },
	[TC_LAT_10S] = { "Lat%", ">10s", "lat>10s", 0 },
	[TC_CPU_EFF] = { "CPU", "Eff", "cpu eff", 0 },
};

/* Right of the identifier column, as tiobench.pl prints them. */
const char tio_head1[] = "File  Blk   Num                   Avg      "
	"Maximum      Lat%     Lat%    CPU";
const char tio_head2[] = "Size  Size  Thr   Rate  (CPU%)  Latency    "
	"Latency      >2s      >10s    Eff";
const char tio_rule[] = "------ ----- ---  ------ ------ --------- "
	"-----------  -------- -------- -----";

const struct cmp_metric *fmt_tio_metric(const struct comparison *c,
					int phase, int col)
{
	char name[96];

	tiobench_metric(name, sizeof(name), phase, col);
	return compare_find(c, name);
}

int fmt_tio_phase_present(const struct comparison *c, int phase)
{
	int col;

	for (col = 0; col < TC_NCOLS; col++)
		if (fmt_tio_metric(c, phase, col))
			return 1;
	return 0;
}

/* tiobench.pl writes CPU% with four significant digits: 2.389, 28.50. */
static void fmt_cpu(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a < 9.9995)
		snprintf(buf, len, "%.3f%%", v);
	else if (a < 99.995)
		snprintf(buf, len, "%.2f%%", v);
	else
		snprintf(buf, len, "%.1f%%", v);
}

void fmt_tio_value(char *buf, size_t len, int col, double v)
{
	switch (col) {
	case TC_FILE_SIZE:
	case TC_BLK_SIZE:
	case TC_THREADS:
	case TC_CPU_EFF:
		snprintf(buf, len, "%.0f", v);
		break;
	case TC_RATE:
		snprintf(buf, len, "%.2f", v);
		break;
	case TC_CPU:
		fmt_cpu(buf, len, v);
		break;
	case TC_AVG_LAT:
		snprintf(buf, len, "%.3f", v);
		break;
	case TC_MAX_LAT:
		snprintf(buf, len, "%.2f", v);
		break;
	default:
		snprintf(buf, len, "%.5f", v);
	}
}

static const char *const section_metrics[] = {
	"dbench.throughput", "dbench.clients", "dbench.procs",
	"dbench.max_latency", "dbench.nb_throughput",
	"readlat.read_mb", "readlat.rate", "readlat.lat_min",
	"readlat.lat_avg", "readlat.lat_max", "readlat.lat_2s",
	"readlat.lat_10s",
};

int fmt_metric_has_section(const char *metric)
{
	size_t i;
	int p, col;
	char name[96];

	for (i = 0; i < sizeof(section_metrics) / sizeof(*section_metrics); i++)
		if (!strcmp(metric, section_metrics[i]))
			return 1;
	if (strncmp(metric, "tiobench.", 9))
		return 0;
	for (p = 0; p < TIO_NPHASES; p++)
		for (col = 0; col < TC_NCOLS; col++) {
			tiobench_metric(name, sizeof(name), p, col);
			if (!strcmp(metric, name))
				return 1;
		}
	return 0;
}

void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "%s", isnan(v) ? "nan" : "inf");
	else if (a == 0)
		snprintf(buf, len, "0");
	else if (a < 1e15 && v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, len, "%.2f", v);
	else if (a >= 0.01)
		snprintf(buf, len, "%.4f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

void fmt_delta(char *buf, size_t len, const struct cmp_cell *cell)
{
	if (!cell->present || isnan(cell->delta_pct))
		snprintf(buf, len, "n/a");
	else if (fabs(cell->delta_pct) < 0.05)
		snprintf(buf, len, "0.0%%");
	else
		snprintf(buf, len, "%+.1f%%", cell->delta_pct);
}

void fmt_p(char *buf, size_t len, const struct cmp_cell *cell)
{
	if (!cell->vd.tested)
		snprintf(buf, len, "%s", "");
	else if (cell->vd.p < 0.001)
		snprintf(buf, len, "p<0.001");
	else
		snprintf(buf, len, "p=%.3f", cell->vd.p);
}

void fmt_ci(char *buf, size_t len, const struct cmp_cell *cell)
{
	if (!cell->vd.tested)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "[%+.1f%%, %+.1f%%]", cell->vd.ci_lo,
			 cell->vd.ci_hi);
}

void fmt_verdict(char *buf, size_t len, const struct cmp_cell *cell)
{
	if (cell->verdict != V_NONE)
		snprintf(buf, len, "%s", cmp_verdict_name(cell->verdict));
	else if (cell->vd.note && *cell->vd.note)
		snprintf(buf, len, "%s", cell->vd.note);
	else
		snprintf(buf, len, "no verdict");
}

void fmt_ascii(char *buf, size_t len, const char *s)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; s && s[i] && i + 1 < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[i] = ch < 0x20 || ch >= 0x7f ? '?' : (char)ch;
	}
	buf[i] = '\0';
}

void fmt_job_config(char *buf, size_t len, double scale,
		    const char *scheduler, const char *cmdline)
{
	int n = snprintf(buf, len, "scale %g, scheduler %s", scale,
			 scheduler && *scheduler ? scheduler : "default");

	if (cmdline && *cmdline && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", cmdline \"%s\"",
			 cmdline);
}

int fmt_job_config_is_default(double scale, const char *scheduler,
			      const char *cmdline)
{
	return (scale == 1 || scale <= 0) && !(scheduler && *scheduler) &&
	       !(cmdline && *cmdline);
}

size_t fmt_reps(const struct comparison *c, size_t k)
{
	size_t i, n = 0;

	for (i = 0; i < c->nm; i++)
		if (c->m[i].cells[k].s.n > n)
			n = c->m[i].cells[k].s.n;
	return n;
}

void fmt_count(const struct comparison *c, struct fmt_counts *n)
{
	size_t i, k;

	memset(n, 0, sizeof(*n));
	for (i = 0; i < c->nm; i++)
		for (k = 0; k < c->nk; k++) {
			enum cmp_verdict v = c->m[i].cells[k].verdict;

			if (k == c->baseline || c->m[i].dir == DIR_NONE ||
			    !c->m[i].cells[k].present)
				continue;
			n->better += v == V_BETTER;
			n->worse += v == V_WORSE;
			n->same += v == V_SAME;
			n->undecided += v == V_UNDECIDED;
			n->none += v == V_NONE;
			n->headline_worse += v == V_WORSE &&
				c->m[i].kind.klass == VC_HEADLINE;
		}
}
