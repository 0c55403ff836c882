// SPDX-License-Identifier: MIT
/*
 * Checking a submission in (submission_create, submissions.h): the base
 * resolved as the kernel builder names it, the rigs and suites named or
 * taken from the configuration (submit_rigs, submit_suites,
 * submit_max_cells), the job configuration of their cells checked as a
 * job's (job_config_check, lab/job_check.h: invalid naming 'scale' or
 * 'scheduler', forbidden naming 'cmdline'), the series split into
 * patches as build-kernel.sh splits it (messages of an mbox, those
 * without a diff such as a cover letter dropped; each keeps its subject
 * without "[PATCH n/m]"), then stored and applied to the base with
 * build-kernel.sh --check (build_series_check, lab/build.h).  Any
 * refusal names the problem (the patch, file and hunk of one that does
 * not apply) and stores nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "flow/driver.h"
#include "flow/submissions.h"
#include "lab/build.h"
#include "lab/job_check.h"
#include "lab/rig.h"
#include "lib/alloc.h"

#define SUB_MAX_CELLS_DEFAULT 20
#define SUB_NOTE_MAX 1000

/* ---- splitting a series ------------------------------------------- */

/* "From SHA Mon Jan  1 ..." : the line that starts a message of an mbox. */
static int is_from_line(const char *l, size_t n)
{
	static const char days[] = "Mon Tue Wed Thu Fri Sat Sun ";
	const char *sp, *end = l + n;
	size_t i;

	if (n < 12 || memcmp(l, "From ", 5) || l[5] == ' ')
		return 0;
	sp = memchr(l + 5, ' ', n - 5);
	while (sp && sp < end && *sp == ' ')
		sp++;
	if (!sp || end - sp < 4)
		return 0;
	for (i = 0; i + 4 <= sizeof(days) - 1; i += 4)
		if (!memcmp(sp, days + i, 4))
			return 1;
	return 0;
}

/* One message of a series being read. */
struct piece {
	int header, hasdiff, subject_open;
	char subject[SUB_SUBJECT_MAX + 1];
	const char *prev;
	size_t prevlen;
};

static void piece_line(struct piece *p, const char *l, size_t n)
{
	size_t have = strlen(p->subject);

	if (p->header && !n)
		p->header = 0;
	if (p->header && p->subject_open && (*l == ' ' || *l == '\t'))
		snprintf(p->subject + have, sizeof(p->subject) - have,
			 "%.*s", (int)n, l);
	else if (p->header)
		p->subject_open = 0;
	if (p->header && !have && n > 9 && !strncasecmp(l, "Subject: ", 9)) {
		snprintf(p->subject, sizeof(p->subject), "%.*s", (int)n - 9,
			 l + 9);
		p->subject_open = 1;
	}
	if (p->prev && p->prevlen > 4 && !memcmp(p->prev, "--- ", 4) &&
	    n > 4 && !memcmp(l, "+++ ", 4))
		p->hasdiff = 1;
	p->prev = l;
	p->prevlen = n;
}

/* The subject without "[PATCH n/m] ", unprintable bytes made '?'. */
static void subject_clean(const char *in, const char *dflt, char *out,
			  size_t len)
{
	const char *s = in;
	size_t i;

	while (*s == ' ')
		s++;
	if (*s == '[' && strchr(s, ']'))
		s = strchr(s, ']') + 1;
	while (*s == ' ')
		s++;
	snprintf(out, len, "%s", *s ? s : dflt);
	for (i = 0; out[i]; i++)
		if ((unsigned char)out[i] < 32 || out[i] == 127)
			out[i] = '?';
}

size_t sub_series_messages(const struct sub_file *f, size_t *off,
			   size_t *len, size_t max)
{
	const char *l = f->text, *end = f->text + f->len, *nl;
	size_t n = 0, k;

	for (; l < end && n < max; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		k = (size_t)(nl - l) - (nl > l && nl[-1] == '\r');
		if (!n || is_from_line(l, k)) {
			if (n)
				len[n - 1] = (size_t)(l - f->text) - off[n - 1];
			off[n++] = (size_t)(l - f->text);
		}
		if (nl == end)
			break;
	}
	if (n)
		len[n - 1] = f->len - off[n - 1];
	return n;
}

int sub_series_split(const struct sub_file *f, struct db_sub_patch *p,
		     size_t *n, char subj[][SUB_SUBJECT_MAX + 1])
{
	const char *l = f->text, *end = f->text + f->len, *nl;
	struct piece pc;
	size_t first = *n, i, k;
	char buf[300];

	memset(&pc, 0, sizeof(pc));
	pc.header = 1;
	for (; l <= end; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		k = (size_t)(nl - l) - (nl > l && nl[-1] == '\r');
		if (l == end || is_from_line(l, k)) {
			if (pc.hasdiff && *n >= SUB_MAX_PATCHES)
				goto out_full;
			if (pc.hasdiff)
				subject_clean(pc.subject, f->name, subj[(*n)++],
					      SUB_SUBJECT_MAX + 1);
			memset(&pc, 0, sizeof(pc));
			pc.header = 1;
		}
		if (l < end)
			piece_line(&pc, l, k);
		if (nl == end)
			break;
	}
	if (pc.hasdiff && *n >= SUB_MAX_PATCHES)
		goto out_full;
	if (pc.hasdiff)
		subject_clean(pc.subject, f->name, subj[(*n)++],
			      SUB_SUBJECT_MAX + 1);
	for (i = first; i < *n; i++) {
		if (*n - first > 1)
			snprintf(buf, sizeof(buf), "%.200s[%zu/%zu]", f->name,
				 i - first + 1, *n - first);
		else
			snprintf(buf, sizeof(buf), "%.200s", f->name);
		p[i].seq = (int)i + 1;
		p[i].name = xstrdup(buf);
		p[i].subject = subj[i];
	}
	return (int)(*n - first);

out_full:	/* the file's pieces were not named: none of them counts */
	*n = first;
	return -1;
}

int sub_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!strchr(" \t\r\n", s[i]) || !s[i])
			return 0;
	return 1;
}

/* ---- checking a request ---------------------------------------------- */

/* Add the name (len bytes at s) to the ',' list sb unless it is there;
 * 1 when added. */
static int list_add(struct strbuf *sb, const char *s, size_t len)
{
	const char *p = sb->buf;
	size_t n;

	for (; p && *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		if (n == len && !memcmp(p, s, len))
			return 0;
	}
	sb_addf(sb, "%s%.*s", sb->len ? "," : "", (int)len, s);
	return 1;
}

/* The request's list, or the configuration's key split at ',' and
 * spaces into sb (',' joined, each name once); the count. */
static size_t list_join(struct klabd *d, const char *const *v, size_t n,
			const char *key, struct strbuf *sb)
{
	const char *p = n ? NULL : config_get(&d->cfg, "", key);
	size_t i, k = 0, len;

	for (i = 0; i < n; i++)
		k += list_add(sb, v[i], strlen(v[i]));
	while (p && *p) {
		p += strspn(p, ", \t");
		len = strcspn(p, ", \t");
		if (len)
			k += list_add(sb, p, len);
		p += len;
	}
	return k;
}

/* Rigs and suites named or defaulted, each known. */
static enum outcome cells_check(struct klabd *d, const struct sub_input *in,
				struct strbuf *rigs, struct strbuf *suites,
				char *err, size_t errlen)
{
	char name[128];
	const char *p;
	size_t n;

	if (!list_join(d, in->rig, in->nrigs, "submit_rigs", rigs)) {
		snprintf(err, errlen, "no rig: name one ('rigs'), or set "
			 "submit_rigs in klabd's configuration");
		return OUT_INVALID;
	}
	if (!list_join(d, in->suite, in->nsuites, "submit_suites", suites)) {
		snprintf(err, errlen, "no suite: name one ('suites'), or set "
			 "submit_suites in klabd's configuration");
		return OUT_INVALID;
	}
	for (p = rigs->buf; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (n >= sizeof(name) ||
		    !rig_class_resolve(d, name, NULL, 0)) {
			snprintf(err, errlen, "unknown rig '%.100s' (no rig "
				 "or class of that name)", name);
			return OUT_NOTFOUND;
		}
	}
	for (p = suites->buf; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (job_suite_check(d, name, err, errlen))
			return OUT_INVALID;
	}
	return OUT_OK;
}

/* What a request is checked into, its strings owned: the cells' lists,
 * the patches split (their subjects in subj), the stored files and the
 * base as the queue takes it. */
struct sub_checked {
	struct strbuf rigs, suites, paths, queued;
	struct db_sub_patch p[SUB_MAX_PATCHES];
	char subj[SUB_MAX_PATCHES][SUB_SUBJECT_MAX + 1];
	size_t np;
	int max_cells;
};

static struct sub_checked *sub_checked_create(void)
{
	struct sub_checked *k = calloc(1, sizeof(*k));

	if (!k)
		abort();
	sb_init(&k->rigs);
	sb_init(&k->suites);
	sb_init(&k->paths);
	sb_init(&k->queued);
	return k;
}

static void sub_checked_destroy(struct sub_checked *k)
{
	size_t i;

	for (i = 0; i < k->np; i++)
		free(k->p[i].name);
	sb_release(&k->rigs);
	sb_release(&k->suites);
	sb_release(&k->paths);
	sb_release(&k->queued);
	free(k);
}

/* The series: every file split into k's patches, each with a diff; the
 * files as build_series_check takes them into bp. */
static enum outcome series_check(const struct sub_input *in,
				 struct sub_checked *k,
				 struct build_patch *bp, char *err,
				 size_t errlen)
{
	size_t i;
	int n;

	if (!in->nfiles) {
		snprintf(err, errlen, "no patch: upload a series or paste one");
		return OUT_INVALID;
	}
	for (i = 0; i < in->nfiles; i++) {
		const struct sub_file *f = &in->file[i];

		if (sub_blank(f->text, f->len)) {
			snprintf(err, errlen, "patch '%.200s' is empty",
				 f->name);
			return OUT_INVALID;
		}
		n = sub_series_split(f, k->p, &k->np, k->subj);
		if (n < 0)
			snprintf(err, errlen, "too many patches: at most %d",
				 SUB_MAX_PATCHES);
		else if (!n)
			snprintf(err, errlen, "patch '%.200s' is not a patch: "
				 "no diff found in it", f->name);
		if (n <= 0)
			return OUT_INVALID;
		bp[i].name = f->name;
		bp[i].text = f->text;
		bp[i].len = f->len;
	}
	return OUT_OK;
}

/* Store the files and check that the series applies to base (OUT_REFUSED
 * names the patch, the file and the hunk); the stored paths and the base
 * as the queue takes it into k. */
static enum outcome series_apply(struct klabd *d, const char *base,
				 const struct build_patch *bp, size_t n,
				 struct sub_checked *k, char *err,
				 size_t errlen)
{
	struct strbuf spec = STRBUF_INIT;
	char *commit = NULL;
	enum outcome o;

	sb_init(&spec);
	if (build_base_resolve(d, base, &spec, err, errlen)) {
		o = OUT_INVALID;
		goto out;
	}
	o = build_series_check(d, spec.buf, bp, n, &k->paths, &commit, err,
			       errlen);
	if (o == OUT_OK)
		build_base_queued(base, commit ? commit : "", &k->queued);
out:
	free(commit);
	sb_release(&spec);
	return o;
}

static int sub_store(struct db *db, struct db_submission *s,
		     const struct db_sub_patch *p, size_t n, int64_t *id,
		     char *err, size_t errlen)
{
	char log[300];
	int rc = db_begin(db) ? DB_ERR : DB_OK;

	snprintf(log, sizeof(log), "%zu patch%s appl%s to %.200s\n", n,
		 n == 1 ? "" : "es", n == 1 ? "ies" : "y", s->base);
	if (!rc)
		rc = db_submission_add(db, s, p, n, log, id, err, errlen);
	if (rc) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db);
}

/* The number of cells a side: asked, the configuration's or 20. */
static enum outcome cells_cap(struct klabd *d, long asked, int *out,
			      char *err, size_t errlen)
{
	const char *v = config_get(&d->cfg, "", "submit_max_cells");
	struct vd_plan plan;
	long n = asked;

	if (!n && (!v || parse_long(v, 1, SUB_MAX_CELLS, &n)))
		n = SUB_MAX_CELLS_DEFAULT;
	vd_plan_default(&plan);
	if (n < 1 || n > SUB_MAX_CELLS || vd_plan_set_cap(&plan, (size_t)n)) {
		snprintf(err, errlen, "field 'max_cells': between %zu (the "
			 "first look) and %d", plan.looks[0], SUB_MAX_CELLS);
		return OUT_INVALID;
	}
	*out = (int)n;
	return OUT_OK;
}

/* Everything of in checked, in the order a refusal is named, into k:
 * the patches stored and applied last. */
static enum outcome sub_check(struct klabd *d, const struct sub_input *in,
			      struct sub_checked *k, char *err,
			      size_t errlen)
{
	struct build_patch bp[SUB_MAX_FILES];
	enum outcome o;

	if (!in->base || !*in->base) {
		snprintf(err, errlen, "field 'base': missing");
		return OUT_INVALID;
	}
	if (in->note && strlen(in->note) > SUB_NOTE_MAX) {
		snprintf(err, errlen, "field 'note': at most %d bytes",
			 SUB_NOTE_MAX);
		return OUT_INVALID;
	}
	o = cells_cap(d, in->max_cells, &k->max_cells, err, errlen);
	if (o == OUT_OK)
		o = cells_check(d, in, &k->rigs, &k->suites, err, errlen);
	if (o == OUT_OK)
		o = job_config_check(d, in->scale, in->scheduler, in->cmdline,
				     err, errlen);
	if (o == OUT_OK)
		o = series_check(in, k, bp, err, errlen);
	if (o == OUT_OK)
		o = series_apply(d, in->base, bp, in->nfiles, k, err, errlen);
	return o;
}

enum outcome submission_create(struct klabd *d, struct db *db,
			       const struct caller *c,
			       const struct sub_input *in, int64_t *id,
			       char *err, size_t errlen)
{
	struct sub_checked *k = sub_checked_create();
	struct db_submission s;
	enum outcome o = sub_check(d, in, k, err, errlen);

	if (o != OUT_OK)
		goto out;
	memset(&s, 0, sizeof(s));
	s.base = k->queued.buf;
	s.files = k->paths.buf;
	s.rigs = k->rigs.buf;
	s.suites = k->suites.buf;
	s.note = (char *)(in->note ? in->note : "");
	s.max_cells = k->max_cells;
	s.scale = in->scale;
	s.scheduler = (char *)(in->scheduler ? in->scheduler : "");
	s.cmdline = (char *)(in->cmdline ? in->cmdline : "");
	s.who = (char *)c->who;
	if (sub_store(db, &s, k->p, k->np, id, err, errlen)) {
		o = OUT_ERROR;
		goto out;
	}
	caller_audit(db, c, "submission add", in->base, "submission %lld: "
		     "%zu patches", (long long)*id, k->np);
	driver_kick(d->subrun);
out:
	sub_checked_destroy(k);
	return o;
}
