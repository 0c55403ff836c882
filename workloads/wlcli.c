// SPDX-License-Identifier: MIT
/*
 * wlcli: command-line parsing and JSON output shared by tiotest, rio, iops
 * and klab-run (see wlcli.h).
 */
#include "workloads/wlcli.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "lib/config.h"
#include "lib/lathist.h"
#include "lib/strbuf.h"
#include "workloads/hist.h"
#include "workloads/runctl.h"

static int bad(const char *opt, const char *s, const char *why)
{
	fprintf(stderr, "invalid value '%s' for --%s: %s\n", s, opt, why);
	return -1;
}

int wl_parse_u64(const char *opt, const char *s, int sizes, uint64_t min,
		 uint64_t max, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return bad(opt, s ? s : "", "not a number");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return bad(opt, s, "not a number");
	if (sizes && *end) {
		const char *u = "kmgt";
		const char *p = strchr(u, *end | 0x20);

		if (!p || !*p)
			return bad(opt, s, "unknown size suffix");
		shift = 10 * (unsigned)(p - u + 1);
		end++;
		if (*end == 'b' || *end == 'B')
			end++;
	}
	if (*end)
		return bad(opt, s, "trailing characters");
	if (shift && v > (UINT64_MAX >> shift))
		return bad(opt, s, "too large");
	v <<= shift;
	if (v < min || v > max) {
		fprintf(stderr, "invalid value '%s' for --%s: must be between "
			"%llu and %llu\n", s, opt, (unsigned long long)min,
			(unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

int wl_parse_uint(const char *opt, const char *s, unsigned min, unsigned max,
		  unsigned *out)
{
	uint64_t v;

	if (wl_parse_u64(opt, s, 0, min, max, &v))
		return -1;
	*out = (unsigned)v;
	return 0;
}

int wl_parse_double(const char *opt, const char *s, double min, double max,
		    double *out)
{
	double v;

	if (parse_double(s, &v))
		return bad(opt, s ? s : "", "not a number");
	if (v < min || v > max) {
		fprintf(stderr, "invalid value '%s' for --%s: must be between "
			"%g and %g\n", s, opt, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static const char *split_word(const char *p, struct strbuf *w, int *open)
{
	int q = 0;

	for (; *p && (q || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
		if (*p == '"') {
			q = !q;
		} else if (q && *p == '\\' && (p[1] == '"' || p[1] == '\\')) {
			sb_addc(w, *++p);
		} else {
			sb_addc(w, *p);
		}
	}
	*open = q;
	return p;
}

char **wl_argv_split(const char *s, char *err, size_t errlen)
{
	struct strbuf w = STRBUF_INIT;
	char **v = NULL;
	size_t n = 0;
	int open = 0;

	while (*s) {
		if (*s == ' ' || *s == '\t' || *s == '\n') {
			s++;
			continue;
		}
		sb_init(&w);
		s = split_word(s, &w, &open);
		if (open) {
			snprintf(err, errlen, "unterminated quote in '%s'",
				 w.buf);
			sb_release(&w);
			goto out_free;
		}
		v = realloc(v, (n + 2) * sizeof(*v));
		if (!v)
			abort();
		v[n++] = sb_detach(&w, NULL);
		v[n] = NULL;
	}
	if (!n)
		snprintf(err, errlen, "empty command");
	return v;
out_free:
	wl_argv_free(v);
	return NULL;
}

void wl_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

size_t wl_argv_count(char *const *argv)
{
	size_t n = 0;

	while (argv && argv[n])
		n++;
	return n;
}

void wl_result(struct result_set *rs, const char *prefix, const char *field,
	       const char *unit, double value, enum metric_dir dir)
{
	char name[256];

	snprintf(name, sizeof(name), "%s.%s", prefix, field);
	result_set_add(rs, NULL, name, unit, value, dir);
}

void wl_result_pcts(struct result_set *rs, const char *prefix,
		    const struct hist *h, double div, const char *unit, int all)
{
	static const struct {
		double p;
		const char *name;
		int extra;
	} pc[] = {
		{ 50, "lat_p50", 0 }, { 90, "lat_p90", 1 },
		{ 99, "lat_p99", 0 }, { 99.9, "lat_p99_9", 0 },
		{ 99.99, "lat_p99_99", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(pc) / sizeof(pc[0]); i++) {
		if (pc[i].extra && !all)
			continue;
		wl_result(rs, prefix, pc[i].name, unit,
			  (double)hist_percentile(h, pc[i].p) / div, DIR_LOWER);
	}
	wl_result_hist(rs, prefix, h);
}

void wl_result_hist(struct result_set *rs, const char *phase,
		    const struct hist *h)
{
	struct lathist lh;
	uint64_t up;
	unsigned i;

	if (!h->count)
		return;
	lathist_init(&lh);
	for (i = 0; i < HIST_NR; i++) {
		if (!h->b[i])
			continue;
		up = i + 1 < HIST_NR ? hist_bucket_low(i + 1) : h->max + 1;
		if (up <= hist_bucket_low(i))
			up = hist_bucket_low(i) + 1;
		lathist_add(&lh, up, h->b[i]);
	}
	result_set_hist_merge(rs, phase, &lh);
	lathist_release(&lh);
}

void wl_kernel_id(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u) == 0)
		snprintf(buf, len, "%s", u.release);
	else
		snprintf(buf, len, "unknown");
}

int wl_parse_common(int c, struct wl_common *cm, void (*usage)(FILE *))
{
	switch (c) {
	case WL_OPT_TIMEOUT:
		return wl_parse_double("timeout", optarg, 0, 1e7,
				       &cm->timeout);
	case WL_OPT_SEED:
		return wl_parse_u64("seed", optarg, 0, 0, UINT64_MAX,
				    &cm->seed);
	case WL_OPT_ID:
		cm->id = optarg;
		return 0;
	case 'o':
		cm->out = optarg;
		return 0;
	case 'h':
		usage(stdout);
		exit(0);
	default: return 1;
	}
}

int wl_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *lo, struct wl_common *cm,
	      void (*usage)(FILE *), int (*fn)(int c, void *ctx), void *ctx)
{
	int c, rc;

	for (;;) {
		c = getopt_long(argc, argv, shortopts, lo, NULL);
		if (c == -1)
			break;
		rc = wl_parse_common(c, cm, usage);
		if (rc > 0)
			rc = fn(c, ctx);
		if (rc)
			return -1;
	}
	return 0;
}

uint64_t wl_worker_seed(uint64_t seed, unsigned i)
{
	return seed * 0x9e3779b97f4a7c15ull + i * 7919 + 1;
}

void wl_run_begin(struct result_set *rs, const char *id, const char *format)
{
	char buf[256];

	wl_signals_install();
	if (id)
		snprintf(buf, sizeof(buf), "%s", id);
	else
		wl_kernel_id(buf, sizeof(buf));
	result_set_init(rs);
	result_set_setstr(&rs->kernel, buf);
	result_set_setstr(&rs->format, format);
}

void wl_run_end(const char *prog, int warn_signal)
{
	if (wl_error())
		fprintf(stderr, "%s: %s\n", prog, wl_error());
	else if (wl_stop == WL_STOP_SIGNAL && warn_signal)
		fprintf(stderr, "%s: interrupted, results incomplete\n", prog);
}

int wl_output_json(struct result_set *rs, const char *path)
{
	json_t *doc;
	FILE *f = stdout;
	int rc = 0;

	if (wl_stop == WL_STOP_SIGNAL)
		rs->incomplete = 1;
	if (wl_error() && !rs->error) {
		rs->incomplete = 1;
		result_set_setstr(&rs->error, wl_error());
	}
	doc = result_set_to_json(rs);
	if (!doc) {
		fprintf(stderr, "cannot encode results as JSON\n");
		return -1;
	}
	if (path && strcmp(path, "-") != 0) {
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "cannot write '%s': %s\n", path,
				strerror(errno));
			json_decref(doc);
			return -1;
		}
	}
	if (json_dumpf(doc, f, JSON_INDENT(1) | JSON_SORT_KEYS) ||
	    fputc('\n', f) == EOF)
		rc = -1;
	if (f == stdout ? fflush(f) != 0 : fclose(f) != 0)
		rc = -1;
	if (rc)
		fprintf(stderr, "cannot write results to '%s'\n",
			path ? path : "stdout");
	json_decref(doc);
	return rc;
}
