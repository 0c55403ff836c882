// SPDX-License-Identifier: MIT
/*
 * compare_hist: gather the latency histograms of a comparison's runs and
 * show them (see compare_hist.h).  They come from db/ as numbers (no
 * JSON is parsed); one that breaks lathist's rules is skipped there: the
 * page shows what it can.
 */
#include "compare_hist.h"

#include <stdlib.h>
#include <string.h>

#include "lib/lathist.h"
#include "web/chart_cdf.h"

#define MAX_PHASES 64

struct phase {
	char *name;
	struct lathist *k;	/* one per kernel of the comparison */
};

struct hists {
	struct phase *v;
	size_t n;
	size_t nk;
};

/* The runs (cells) of kernel k, without repeats, into a malloc'd array. */
static size_t kernel_runs(const struct comparison *c, size_t k,
			  int64_t **out)
{
	int64_t *v = NULL;
	size_t n = 0, i, j, r;

	for (i = 0; i < c->nm; i++) {
		const struct cmp_cell *cell = &c->m[i].cells[k];

		for (j = 0; cell->present && j < cell->nvalues; j++) {
			for (r = 0; r < n && v[r] != cell->runs[j]; r++)
				;
			if (r < n)
				continue;
			v = realloc(v, (n + 1) * sizeof(*v));
			if (!v)
				abort();
			v[n++] = cell->runs[j];
		}
	}
	*out = v;
	return n;
}

static struct phase *phase_get(struct hists *h, const char *name,
			       size_t len)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (strlen(h->v[i].name) == len &&
		    !memcmp(h->v[i].name, name, len))
			return &h->v[i];
	if (h->n >= MAX_PHASES)
		return NULL;
	h->v = realloc(h->v, (h->n + 1) * sizeof(*h->v));
	if (!h->v)
		abort();
	h->v[h->n].name = strndup(name, len);
	h->v[h->n].k = calloc(h->nk, sizeof(struct lathist));
	if (!h->v[h->n].name || !h->v[h->n].k)
		abort();
	return &h->v[h->n++];
}

static void run_add(struct hists *h, struct db *db, int64_t run, size_t k)
{
	struct db_hist *v = NULL;
	struct phase *p;
	size_t n = 0, i;

	if (db_hist_list(db, run, &v, &n))
		return;
	for (i = 0; i < n; i++) {
		p = phase_get(h, v[i].phase, strlen(v[i].phase));
		if (p)
			lathist_merge(&p->k[k], &v[i].h);
	}
	db_hists_free(v, n);
}

static void hists_gather(struct hists *h, struct db *db,
			 const struct comparison *c)
{
	int64_t *runs;
	size_t k, n, i;

	memset(h, 0, sizeof(*h));
	h->nk = c->nk;
	for (k = 0; k < c->nk; k++) {
		n = kernel_runs(c, k, &runs);
		for (i = 0; i < n; i++)
			run_add(h, db, runs[i], k);
		free(runs);
	}
}

static void hists_release(struct hists *h)
{
	size_t i, k;

	for (i = 0; i < h->n; i++) {
		for (k = 0; k < h->nk; k++)
			lathist_release(&h->v[i].k[k]);
		free(h->v[i].k);
		free(h->v[i].name);
	}
	free(h->v);
}

static int phase_drawn(const struct comparison *c, const struct phase *p)
{
	size_t k;

	if (!p->k[c->baseline].total)
		return 0;
	for (k = 0; k < c->nk; k++)
		if (k != c->baseline && p->k[k].total)
			return 1;
	return 0;
}

static void phase_chart(struct strbuf *sb, const struct comparison *c,
			const struct phase *p)
{
	struct cdf_series *s = calloc(c->nk, sizeof(*s));
	size_t k, n = 0;

	if (!s)
		abort();
	/* the baseline first: it is drawn dashed */
	s[n++] = (struct cdf_series){ c->kernels[c->baseline],
		p->k[c->baseline].up, p->k[c->baseline].cnt,
		p->k[c->baseline].n };
	for (k = 0; k < c->nk; k++)
		if (k != c->baseline)
			s[n++] = (struct cdf_series){ c->kernels[k],
				p->k[k].up, p->k[k].cnt, p->k[k].n };
	sb_adds(sb, "<h3>");
	sb_add_html(sb, p->name);
	sb_adds(sb, "</h3>\n");
	chart_cdf_svg(sb, p->name, s, n);
	free(s);
}

void compare_hist_html(struct strbuf *sb, struct db *db,
		       const struct comparison *c)
{
	struct hists h;
	size_t i;
	int head = 0;

	hists_gather(&h, db, c);
	for (i = 0; i < h.n; i++) {
		if (!phase_drawn(c, &h.v[i]))
			continue;
		if (!head++)
			sb_adds(sb, "<h2 id=\"latency\">Latency "
				"distributions</h2>\n<p>Share of requests "
				"slower than each latency (1 - CDF), both "
				"axes logarithmic; the baseline is dashed, "
				"the cells of each kernel merged.</p>\n");
		phase_chart(sb, c, &h.v[i]);
	}
	hists_release(&h);
}

json_t *compare_hist_json(struct db *db, const struct comparison *c)
{
	json_t *doc = json_object(), *ph;
	struct hists h;
	size_t i, k;

	hists_gather(&h, db, c);
	for (i = 0; i < h.n; i++) {
		ph = json_object();
		for (k = 0; k < h.nk; k++)
			if (h.v[i].k[k].total)
				json_object_set_new(ph, c->kernels[k],
					lathist_to_json(&h.v[i].k[k]));
		json_object_set_new(doc, h.v[i].name, ph);
	}
	hists_release(&h);
	return doc;
}
