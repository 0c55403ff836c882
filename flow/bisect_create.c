// SPDX-License-Identifier: MIT
/*
 * Checking a bisection in (bisection_create, bisect.h).  The rig, suite,
 * metrics, cap and job configuration (job_config_check, as for jobs
 * and comparison runs) are checked first.  A series is split into its
 * patches (sub_series_messages and sub_series_split, as a submission's),
 * each message stored as a file of its own so that a step can build
 * base + patches 1..k, and the whole series applied to the base with
 * build-kernel.sh --check; candidate k is base + patches 1..k.  A Debian
 * range good..bad is resolved against the archive's list
 * (debian-kernels.sh list-available): every package of the line whose
 * upstream version lies between the two, in version order; candidate 0
 * is good, the last bad.  A git range good..bad names a [base NAME] with
 * git = PATH (never a path) and two commits, resolved there
 * (bisect_git.c) with good an ancestor of bad; candidate 0 is good, 1
 * bad, and git bisect adds the commits it chooses as it goes.  A refusal
 * names the problem and stores nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/bisect.h"
#include "flow/driver.h"
#include "judge/bisect_pick.h"
#include "lab/build.h"
#include "lab/catalog.h"
#include "lab/job_check.h"
#include "lab/rig.h"
#include "lib/alloc.h"
#include "lib/ident.h"

#define BIS_MAX_CANDS (SUB_MAX_PATCHES + 1)

/* Candidates being gathered, their strings owned; a series' messages as
 * build_series_check takes them (names in c[i + 1].file, texts the
 * request's). */
struct bis_cands {
	struct db_bis_cand c[BIS_MAX_CANDS];
	size_t n;
	struct build_patch bp[BIS_MAX_CANDS];
	size_t nbp;
};

static void cands_release(struct bis_cands *cs)
{
	size_t i;

	for (i = 0; i < cs->n; i++) {
		free(cs->c[i].label);
		free(cs->c[i].subject);
		free(cs->c[i].author);
		free(cs->c[i].file);
	}
	cs->n = 0;
	cs->nbp = 0;
}

static void cand_add(struct bis_cands *cs, const char *label,
		     const char *subject, const char *author,
		     const char *file)
{
	struct db_bis_cand *c = &cs->c[cs->n];

	c->idx = (int)cs->n++;
	c->label = xstrdup(label);
	c->subject = xstrdup(subject);
	c->author = xstrdup(author);
	c->file = xstrdup(file);
	c->kernel = "";
}

/* The "From: " header of the message at s (len bytes), into out. */
static void msg_author(const char *s, size_t len, char *out, size_t outlen)
{
	const char *l = s, *end = s + len, *nl;

	out[0] = '\0';
	for (; l < end; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		if (nl == l || (nl == l + 1 && *l == '\r'))
			break;	/* end of the header */
		if (nl - l > 6 && !strncmp(l, "From: ", 6)) {
			snprintf(out, outlen, "%.*s", (int)(nl - l - 6 -
				 (nl[-1] == '\r')), l + 6);
			break;
		}
	}
}

/* Every message with a diff of the files, one candidate each into cs
 * (after candidate 0) with its message in cs->bp. */
static enum outcome series_split(const struct bis_input *in,
				 struct bis_cands *cs, char *err,
				 size_t errlen)
{
	char (*subj)[SUB_SUBJECT_MAX + 1] = calloc(2, sizeof(*subj));
	size_t off[SUB_MAX_PATCHES + 1], len[SUB_MAX_PATCHES + 1];
	char name[64], author[200], label[300];
	struct db_sub_patch p[2];
	enum outcome o = OUT_OK;
	size_t i, m, nm, np;
	int k;

	if (!subj)
		abort();
	for (i = 0; o == OUT_OK && i < in->nfiles; i++) {
		nm = sub_series_messages(&in->file[i], off, len,
					 SUB_MAX_PATCHES + 1);
		for (m = 0; o == OUT_OK && m < nm; m++) {
			struct sub_file f = { in->file[i].name,
					      in->file[i].text + off[m],
					      len[m] };

			np = 0;
			k = sub_series_split(&f, p, &np, subj);
			if (k > 0)
				free(p[0].name);
			if (k != 1)
				continue;
			if (cs->n >= BIS_MAX_CANDS) {
				snprintf(err, errlen, "too many patches: at "
					 "most %d", SUB_MAX_PATCHES);
				o = OUT_INVALID;
				break;
			}
			msg_author(f.text, f.len, author, sizeof(author));
			snprintf(name, sizeof(name), "%04zu.patch", cs->n);
			snprintf(label, sizeof(label), "[%zu] %s", cs->n,
				 subj[0]);
			cand_add(cs, label, subj[0], author, name);
			cs->bp[cs->nbp].name = cs->c[cs->n - 1].file;
			cs->bp[cs->nbp].text = f.text;
			cs->bp[cs->nbp++].len = f.len;
		}
	}
	free(subj);
	return o;
}

/* A series: its candidates, the files stored (paths into each file),
 * the base as the build queue wants it into base. */
static enum outcome series_cands(struct klabd *d, const struct bis_input *in,
				 struct bis_cands *cs, struct strbuf *base,
				 char *err, size_t errlen)
{
	struct strbuf spec = STRBUF_INIT, paths = STRBUF_INIT;
	char *commit = NULL, *p;
	enum outcome o = OUT_INVALID;
	size_t i;

	sb_init(&spec);
	sb_init(&paths);
	cand_add(cs, "base", "", "", "");
	if (!in->base || !*in->base)
		snprintf(err, errlen, "field 'base': missing");
	else if (!in->nfiles)
		snprintf(err, errlen, "no patch: a series to bisect is needed");
	else if (!build_base_resolve(d, in->base, &spec, err, errlen))
		o = series_split(in, cs, err, errlen);
	if (o == OUT_OK && cs->n < 2) {
		snprintf(err, errlen, "no patch: no diff found in the series");
		o = OUT_INVALID;
	}
	if (o == OUT_OK)
		o = build_series_check(d, spec.buf, cs->bp, cs->nbp, &paths,
				       &commit, err, errlen);
	if (o == OUT_OK) {
		build_base_queued(in->base, commit ? commit : "", base);
		for (i = 1, p = paths.buf; i < cs->n && *p; i++) {
			size_t k = strcspn(p, "\n");

			free(cs->c[i].file);
			cs->c[i].file = strndup(p, k);
			if (!cs->c[i].file)
				abort();
			p += k + (p[k] == '\n');
		}
	}
	free(commit);
	sb_release(&spec);
	sb_release(&paths);
	return o;
}

struct deb_pkg {
	char package[128], upstream[64];
};

static int deb_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct deb_pkg *)a)->upstream,
			  ((const struct deb_pkg *)b)->upstream);
}

/* "6.1.170" -> "6.1." (the line), into out. */
static void deb_line(const char *v, char *out, size_t len)
{
	const char *dot = strchr(v, '.');

	dot = dot ? strchr(dot + 1, '.') : NULL;
	snprintf(out, len, "%.*s", dot ? (int)(dot - v + 1) : 0, v);
}

static int deb_parse(const char *list, struct deb_pkg *v, size_t max,
		     const char *line, size_t *n)
{
	const char *l = list;
	char one[400], *pk, *up;
	size_t k;

	*n = 0;
	while (*l && *n < max) {
		k = strcspn(l, "\n");
		snprintf(one, sizeof(one), "%.*s", (int)k, l);
		l += k + (l[k] == '\n');
		for (pk = one; *pk; pk++)	/* key=value words: lines */
			if (*pk == ' ')
				*pk = '\n';
		pk = catalog_record_get(one, "package");
		up = catalog_record_get(one, "upstream");
		if (*pk && *up && !strncmp(up, line, strlen(line)) &&
		    strlen(pk) < sizeof(v->package) &&
		    strlen(up) < sizeof(v->upstream)) {
			snprintf(v[*n].package, sizeof(v->package), "%s", pk);
			snprintf(v[*n].upstream, sizeof(v->upstream), "%s", up);
			(*n)++;
		}
		free(pk);
		free(up);
	}
	return 0;
}

static enum outcome debian_cands(struct klabd *d, const struct bis_input *in,
				 struct bis_cands *cs, char *err,
				 size_t errlen)
{
	struct strbuf out = STRBUF_INIT;
	struct deb_pkg *v = calloc(BIS_MAX_CANDS * 4, sizeof(*v));
	enum outcome o = OUT_OK;
	char line[32];
	size_t n = 0, i;

	if (!v)
		abort();
	sb_init(&out);
	if (!in->good || !in->bad || !*in->good || !*in->bad) {
		snprintf(err, errlen, "fields 'good' and 'bad': the versions "
			 "of the range (6.1.170, 6.1.192)");
		o = OUT_INVALID;
		goto out;
	}
	deb_line(in->good, line, sizeof(line));
	if (!*line || strncmp(in->bad, line, strlen(line)) ||
	    strverscmp(in->good, in->bad) >= 0) {
		snprintf(err, errlen, "'%.60s'..'%.60s' is not a range of one "
			 "kernel line, good first", in->good, in->bad);
		o = OUT_INVALID;
		goto out;
	}
	if (catalog_available(d, &out, err, errlen)) {
		o = OUT_ERROR;
		goto out;
	}
	deb_parse(out.buf, v, BIS_MAX_CANDS * 4, line, &n);
	qsort(v, n, sizeof(*v), deb_cmp);
	for (i = 0; i < n && o == OUT_OK; i++) {
		if (strverscmp(v[i].upstream, in->good) < 0 ||
		    strverscmp(v[i].upstream, in->bad) > 0)
			continue;
		if (cs->n && !strcmp(cs->c[cs->n - 1].label, v[i].upstream))
			continue;	/* one package a version */
		if (cs->n >= BIS_MAX_CANDS) {
			snprintf(err, errlen, "too many releases in the range");
			o = OUT_INVALID;
			break;
		}
		cand_add(cs, v[i].upstream, "", "", v[i].package);
	}
	if (o == OUT_OK && (!cs->n || strcmp(cs->c[0].label, in->good) ||
		    strcmp(cs->c[cs->n - 1].label, in->bad))) {
		snprintf(err, errlen, "kernel '%.60s' not in the archive",
			 cs->n && !strcmp(cs->c[0].label, in->good) ?
			 in->bad : in->good);
		o = OUT_NOTFOUND;
	}
out:
	free(v);
	sb_release(&out);
	return o;
}

/* The git bases of the configuration, ", "-joined into sb. */
static void git_bases(struct klabd *d, struct strbuf *sb)
{
	const struct config *cfg = &d->cfg;
	const char *last = "";
	size_t i, pl = strlen("base ");

	for (i = 0; i < cfg->n; i++) {
		const char *sec = cfg->v[i].section;

		if (strncmp(sec, "base ", pl) || !strcmp(sec, last) ||
		    strcmp(cfg->v[i].key, "git"))
			continue;
		last = sec;
		sb_addf(sb, "%s%s", sb->len ? ", " : "", sec + pl);
	}
	if (!sb->len)
		sb_adds(sb, "none configured");
}

/* A git range: the base by its name, good and bad resolved in its
 * repository, good an ancestor of bad; candidate 0 good, 1 bad (git
 * bisect adds the others as it goes), git's ideal steps into *hint. */
static enum outcome git_cands(struct klabd *d, const struct bis_input *in,
			      struct bis_cands *cs, struct strbuf *base,
			      int *hint, char *err, size_t errlen)
{
	struct strbuf names = STRBUF_INIT;
	enum outcome o = OUT_INVALID;
	struct db_bis_cand g, b;
	const char *repo = NULL;
	long count = 0;

	sb_init(&names);
	memset(&g, 0, sizeof(g));
	memset(&b, 0, sizeof(b));
	git_bases(d, &names);
	if (!in->base || !*in->base) {
		snprintf(err, errlen, "field 'base': missing, name a git base "
			 "of the configuration: %.300s", names.buf);
		goto out;
	}
	if (strpbrk(in->base, "/:@") || strlen(in->base) > 64) {
		snprintf(err, errlen, "field 'base': paths and commits are not "
			 "accepted, name a git base of the configuration: "
			 "%.300s", names.buf);
		goto out;
	}
	repo = bis_git_repo(d, in->base);
	if (!repo) {
		snprintf(err, errlen, "field 'base': unknown git base '%.64s', "
			 "expected one of: %.300s", in->base, names.buf);
		o = OUT_NOTFOUND;
		goto out;
	}
	if (!in->good || !*in->good || !in->bad || !*in->bad) {
		snprintf(err, errlen, "field '%s': missing, a commit of base "
			 "'%.64s'", !in->good || !*in->good ? "good" : "bad",
			 in->base);
		goto out;
	}
	if (bis_git_commit(repo, "good", in->good, in->base, &g, err,
			   errlen) ||
	    bis_git_commit(repo, "bad", in->bad, in->base, &b, err, errlen))
		goto out;
	if (!strcmp(g.file, b.file)) {
		snprintf(err, errlen, "field 'bad': the same commit as 'good' "
			 "(%.12s)", g.file);
		goto out;
	}
	if (bis_git_range(repo, g.file, b.file, &count, err, errlen))
		goto out;
	cand_add(cs, g.label, g.subject, g.author, g.file);
	cand_add(cs, b.label, b.subject, b.author, b.file);
	if (in->kernel_good && in->kernel_bad) {	/* borrowed */
		cs->c[0].kernel = (char *)in->kernel_good;
		cs->c[1].kernel = (char *)in->kernel_bad;
	}
	sb_addf(base, "%s", in->base);
	*hint = (int)bisect_ideal_steps(count > 0 ? (size_t)count : 1);
	o = OUT_OK;
out:
	db_bis_cand_release(&g);
	db_bis_cand_release(&b);
	sb_release(&names);
	return o;
}

/* Rig, suite, metrics, cap, job configuration; metrics joined into ms. */
static enum outcome bis_check(struct klabd *d, const struct bis_input *in,
			      struct strbuf *ms, char *err, size_t errlen)
{
	size_t i;

	if (!in->rig || !*in->rig) {
		snprintf(err, errlen, "field 'rig': missing");
		return OUT_INVALID;
	}
	if (!rig_class_resolve(d, in->rig, NULL, 0)) {
		snprintf(err, errlen, "unknown rig '%.100s' (no rig or "
			 "class of that name)", in->rig);
		return OUT_NOTFOUND;
	}
	if (!in->suite || !*in->suite) {
		snprintf(err, errlen, "field 'suite': missing");
		return OUT_INVALID;
	}
	if (job_suite_check(d, in->suite, err, errlen))
		return OUT_INVALID;
	if (!in->nmetrics) {
		snprintf(err, errlen, "field 'metrics': name the metric that "
			 "regresses");
		return OUT_INVALID;
	}
	for (i = 0; i < in->nmetrics; i++) {
		if (ident_checks(IDENT_METRIC, in->metric[i], err, errlen))
			return OUT_INVALID;
		sb_addf(ms, "%s%s", i ? "," : "", in->metric[i]);
	}
	if (in->max_cells && (in->max_cells < 3 ||
			      in->max_cells > SUB_MAX_CELLS)) {
		snprintf(err, errlen, "field 'max_cells': between 3 (the first "
			 "look) and %d", SUB_MAX_CELLS);
		return OUT_INVALID;
	}
	return job_config_check(d, in->scale, in->scheduler, in->cmdline, err,
				errlen);
}

/* The candidates of in's kind into cs (a series' or git's base as the
 * build queue takes it into base, git's ideal steps into *hint). */
static enum outcome bis_cands(struct klabd *d, const struct bis_input *in,
			      struct bis_cands *cs, struct strbuf *base,
			      int *hint, char *err, size_t errlen)
{
	enum outcome o;

	if (in->kind && !strcmp(in->kind, "series")) {
		o = series_cands(d, in, cs, base, err, errlen);
	} else if (in->kind && !strcmp(in->kind, "debian")) {
		o = debian_cands(d, in, cs, err, errlen);
	} else if (in->kind && !strcmp(in->kind, "git")) {
		o = git_cands(d, in, cs, base, hint, err, errlen);
	} else {
		snprintf(err, errlen, "field 'kind': '%.40s' is not series, "
			 "debian or git", in->kind ? in->kind : "");
		o = OUT_INVALID;
	}
	if (o == OUT_OK && cs->n < 2) {
		snprintf(err, errlen, "nothing to bisect: the range has one "
			 "kernel");
		o = OUT_INVALID;
	}
	return o;
}

enum outcome bisection_create(struct klabd *d, struct db *db,
			      const struct caller *c,
			      const struct bis_input *in, int64_t *id,
			      char *err, size_t errlen)
{
	struct strbuf ms = STRBUF_INIT, base = STRBUF_INIT;
	struct bis_cands *cs = calloc(1, sizeof(*cs));
	struct db_bisection b;
	enum outcome o;
	int hint = -1;

	if (!cs)
		abort();
	sb_init(&ms);
	sb_init(&base);
	memset(&b, 0, sizeof(b));
	o = bis_check(d, in, &ms, err, errlen);
	if (o == OUT_OK)
		o = bis_cands(d, in, cs, &base, &hint, err, errlen);
	if (o != OUT_OK)
		goto out;
	b.kind = (char *)in->kind;
	b.base = base.buf;
	b.good = (char *)(in->good ? in->good : cs->c[0].label);
	b.bad = (char *)(in->bad ? in->bad : cs->c[cs->n - 1].label);
	if (!strcmp(in->kind, "git")) {	/* the commits, not their names */
		b.good = cs->c[0].file;
		b.bad = cs->c[1].file;
	}
	b.rig = (char *)in->rig;
	b.suite = (char *)in->suite;
	b.metrics = ms.buf;
	b.max_cells = in->max_cells ? (int)in->max_cells :
		      BIS_MAX_CELLS_DEFAULT;
	b.scale = in->scale;
	b.scheduler = (char *)(in->scheduler ? in->scheduler : "");
	b.cmdline = (char *)(in->cmdline ? in->cmdline : "");
	b.who = (char *)c->who;
	if (db_bisection_add(db, &b, cs->c, cs->n, id, err, errlen)) {
		o = OUT_ERROR;
		goto out;
	}
	if (hint >= 0)
		db_bisection_set_hint(db, *id, hint);
	if (in->ends_cmp > 0 && in->kernel_good && in->kernel_bad &&
	    db_bisection_verified(db, *id, (int)cs->n - 1, in->ends_cmp))
		fprintf(stderr, "klabd: bisection %lld: cannot take comparison "
			"%lld as its verification: measured again\n",
			(long long)*id, (long long)in->ends_cmp);
	caller_audit(db, c, "bisection add", in->kind, "bisection %lld: "
		     "%zu candidates", (long long)*id, cs->n - 1);
	driver_kick(d->bisrun);
out:
	cands_release(cs);
	free(cs);
	sb_release(&ms);
	sb_release(&base);
	return o;
}
