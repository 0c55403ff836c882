// SPDX-License-Identifier: MIT
/*
 * Checking a submission in (submission_create, submissions.h): the base
 * resolved as the kernel builder names it, the rigs and suites named or
 * taken from the configuration (submit_rigs, submit_suites,
 * submit_max_cells), the job configuration of their cells checked as a
 * job's (api_job_config_check: 400 naming 'scale' or 'scheduler', 403
 * naming 'cmdline'), the series split into patches as build-kernel.sh
 * splits it (messages of an mbox, those without a diff such as a cover
 * letter dropped; each keeps its subject without "[PATCH n/m]"), then
 * stored and applied to the base with build-kernel.sh --check.  Any
 * refusal names the problem (the patch, file and hunk of one that does
 * not apply) and stores nothing.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/api_util.h"
#include "http/auth.h"
#include "lab/build.h"
#include "lib/alloc.h"
#include "flow/driver.h"
#include "lab/rig.h"
#include "flow/submissions.h"

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

/* Rigs and suites named or defaulted, each known: 0 or a status. */
static int cells_check(struct req *rq, const struct sub_input *in,
		       struct strbuf *rigs, struct strbuf *suites, char *err,
		       size_t errlen)
{
	char name[128];
	const char *p;
	size_t n;

	if (!list_join(rq->d, in->rig, in->nrigs, "submit_rigs", rigs)) {
		snprintf(err, errlen, "no rig: name one ('rigs'), or set "
			 "submit_rigs in klabd's configuration");
		return 400;
	}
	if (!list_join(rq->d, in->suite, in->nsuites, "submit_suites",
		       suites)) {
		snprintf(err, errlen, "no suite: name one ('suites'), or set "
			 "submit_suites in klabd's configuration");
		return 400;
	}
	for (p = rigs->buf; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (n >= sizeof(name) || !rigmgr_find(rq->d, name)) {
			snprintf(err, errlen, "unknown rig '%.100s'", name);
			return 404;
		}
	}
	for (p = suites->buf; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (api_suite_check(rq->d, name, err, errlen))
			return 400;
	}
	return 0;
}

/* The series: every file split, each with a diff; the JSON list for
 * build_patches_store into files.  0 or a status. */
static int series_check(const struct sub_input *in, struct db_sub_patch *p,
			size_t *np, char subj[][SUB_SUBJECT_MAX + 1],
			json_t *files, char *err, size_t errlen)
{
	size_t i;
	int k;

	if (!in->nfiles) {
		snprintf(err, errlen, "no patch: upload a series or paste one");
		return 400;
	}
	for (i = 0; i < in->nfiles; i++) {
		const struct sub_file *f = &in->file[i];

		if (sub_blank(f->text, f->len)) {
			snprintf(err, errlen, "patch '%.200s' is empty",
				 f->name);
			return 400;
		}
		k = sub_series_split(f, p, np, subj);
		if (k < 0)
			snprintf(err, errlen, "too many patches: at most %d",
				 SUB_MAX_PATCHES);
		else if (!k)
			snprintf(err, errlen, "patch '%.200s' is not a patch: "
				 "no diff found in it", f->name);
		if (k <= 0)
			return 400;
		json_array_append_new(files, json_pack("{s:s, s:s%}", "name",
				      f->name, "text", f->text, f->len));
	}
	return 0;
}

/* Store the files and check that the series applies to base: 0, or a
 * status with err (422 names the patch, the file and the hunk). */
static int series_apply(struct req *rq, const char *base, json_t *files,
			struct strbuf *paths, struct strbuf *queued,
			char *err, size_t errlen)
{
	struct strbuf spec = STRBUF_INIT;
	char *commit = NULL;
	int rc;

	sb_init(&spec);
	if (build_base_resolve(rq->d, base, &spec, err, errlen)) {
		rc = 400;
		goto out;
	}
	rc = build_series_check(rq, base, spec.buf, files, paths, &commit,
				err, errlen);
	if (!rc)
		build_base_queued(base, commit ? commit : "", queued);
out:
	free(commit);
	sb_release(&spec);
	return rc;
}

static int sub_store(struct req *rq, struct db_submission *s,
		     const struct db_sub_patch *p, size_t n, int64_t *id,
		     char *err, size_t errlen)
{
	char log[300];
	int rc = db_begin(rq->db) ? DB_ERR : DB_OK;

	snprintf(log, sizeof(log), "%zu patch%s appl%s to %.200s\n", n,
		 n == 1 ? "" : "es", n == 1 ? "ies" : "y", s->base);
	if (!rc)
		rc = db_submission_add(rq->db, s, p, n, log, id, err, errlen);
	if (rc) {
		db_rollback(rq->db);
		return rc;
	}
	return db_commit(rq->db);
}

/* The number of cells a side: asked, the configuration's or 20. */
static int cells_cap(struct req *rq, long asked, int *out, char *err,
		     size_t errlen)
{
	const char *v = config_get(&rq->d->cfg, "", "submit_max_cells");
	struct vd_plan plan;
	long n = asked;

	if (!n && (!v || parse_long(v, 1, SUB_MAX_CELLS, &n)))
		n = SUB_MAX_CELLS_DEFAULT;
	vd_plan_default(&plan);
	if (n < 1 || n > SUB_MAX_CELLS || vd_plan_set_cap(&plan, (size_t)n)) {
		snprintf(err, errlen, "field 'max_cells': between %zu (the "
			 "first look) and %d", plan.looks[0], SUB_MAX_CELLS);
		return 400;
	}
	*out = (int)n;
	return 0;
}

int submission_create(struct req *rq, const struct sub_input *in,
		      int64_t *id, char *err, size_t errlen)
{
	char (*subj)[SUB_SUBJECT_MAX + 1] = calloc(SUB_MAX_PATCHES,
						   sizeof(*subj));
	struct strbuf rigs = STRBUF_INIT, suites = STRBUF_INIT,
		      paths = STRBUF_INIT, queued = STRBUF_INIT;
	struct db_sub_patch p[SUB_MAX_PATCHES];
	struct db_submission s;
	json_t *files = json_array();
	size_t np = 0, i;
	int rc;

	sb_init(&rigs); sb_init(&suites); sb_init(&paths); sb_init(&queued);
	memset(&s, 0, sizeof(s));
	if (!subj)
		abort();
	if (!in->base || !*in->base) {
		snprintf(err, errlen, "field 'base': missing");
		rc = 400;
	} else if (in->note && strlen(in->note) > SUB_NOTE_MAX) {
		snprintf(err, errlen, "field 'note': at most %d bytes",
			 SUB_NOTE_MAX);
		rc = 400;
	} else if (!(rc = cells_cap(rq, in->max_cells, &s.max_cells, err,
				    errlen)) &&
		   !(rc = cells_check(rq, in, &rigs, &suites, err, errlen)) &&
		   !(rc = api_job_config_check(rq->d, in->scale, in->scheduler,
					       in->cmdline, err, errlen)) &&
		   !(rc = series_check(in, p, &np, subj, files, err, errlen)))
		rc = series_apply(rq, in->base, files, &paths, &queued, err,
				  errlen);
	if (!rc) {
		s.base = queued.buf;
		s.files = paths.buf;
		s.rigs = rigs.buf;
		s.suites = suites.buf;
		s.note = (char *)(in->note ? in->note : "");
		s.scale = in->scale;
		s.scheduler = (char *)(in->scheduler ? in->scheduler : "");
		s.cmdline = (char *)(in->cmdline ? in->cmdline : "");
		s.who = rq->who;
		rc = sub_store(rq, &s, p, np, id, err, errlen) ? 500 : 0;
	}
	for (i = 0; i < np; i++)
		free(p[i].name);
	free(subj);
	json_decref(files);
	sb_release(&rigs); sb_release(&suites); sb_release(&paths);
	sb_release(&queued);
	if (!rc) {
		auth_audit(rq, "submission add", in->base, "submission %lld: "
			   "%zu patches", (long long)*id, np);
		driver_kick(rq->d->subrun);
	}
	return rc;
}

