// SPDX-License-Identifier: MIT
/*
 * alerts_triage: people look at what the bell rang for (flow/alerts.h
 * "triage").  An alert is acknowledged, marked invalid, fixed by a
 * commit or a kernel, a duplicate of another, or reopened; one alert or
 * its whole group (the alerts of one change).  Each alert changed gets
 * an entry in its log and the change one ALERT_STATE_CHANGED notice, so
 * the feed, mail and webhooks carry it; all in one transaction.  The
 * fields are checked here, for the API, the page and the CLI alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/alerts.h"
#include "db/tokens.h"
#include "flow/alerts.h"
#include "flow/alerts_int.h"
#include "klabd/outcome.h"
#include "lib/alloc.h"
#include "lib/ident.h"
#include "lib/strbuf.h"

#define MAX_GROUP 1000		/* alerts of one group changed at once */
#define MAX_DUP_CHAIN 32	/* duplicates of duplicates followed */

static const char *const settable[] = {
	"new", "acknowledged", "invalid", "fixed", "duplicate",
};

int alerts_state_settable(const char *state)
{
	size_t i;

	for (i = 0; state && i < sizeof(settable) / sizeof(settable[0]); i++)
		if (!strcmp(state, settable[i]))
			return 1;
	return 0;
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* "acknowledged", "fixed by commit abc", ... of a change, into sb. */
static void state_phrase(struct strbuf *sb, const struct db_alert_change *ch)
{
	if (!strcmp(ch->state, "new"))
		sb_adds(sb, "reopened");
	else if (!strcmp(ch->state, "invalid"))
		sb_adds(sb, "marked invalid");
	else if (!strcmp(ch->state, "duplicate"))
		sb_addf(sb, "marked a duplicate of alert %lld",
			(long long)ch->duplicate_of);
	else if (!strcmp(ch->state, "fixed") ||
		 !strcmp(ch->state, "closed")) {
		sb_adds(sb, ch->state);
		if (*ch->commit)
			sb_addf(sb, " (commit %s)", ch->commit);
		if (*ch->kernel)
			sb_addf(sb, " (kernel %s)", ch->kernel);
	} else
		sb_adds(sb, ch->state);
}

/* The notice of ch on v[0..n) (v[0] the alert named), as an event. */
static int notice_emit(struct db *db, const struct db_alert_event *v,
		       size_t n, const struct db_alert_change *ch,
		       int64_t log, int64_t *notice, char *err, size_t errlen)
{
	struct strbuf title = STRBUF_INIT, text = STRBUF_INIT;
	char link[48], key[48];
	struct alert_event ev;
	size_t i;
	int rc;

	sb_init(&title);
	sb_init(&text);
	if (n == 1)
		sb_addf(&title, "alert %lld ", (long long)v[0].id);
	else
		sb_addf(&title, "alert %lld and %zu more of group %lld ",
			(long long)v[0].id, n - 1, (long long)v[0].group_id);
	state_phrase(&title, ch);
	sb_addf(&title, " by %s: %.200s", ch->who, v[0].title);
	sb_addf(&text, "%s\n\nalert:   %lld (%s)\nstate:   %s -> %s\nby:      "
		"%s\n", title.buf, (long long)v[0].id, v[0].kind, v[0].state,
		ch->state, ch->who);
	for (i = 1; i < n; i++)
		sb_addf(&text, "%s%lld%s", i == 1 ? "also:    alerts " : ", ",
			(long long)v[i].id, i + 1 == n ? "\n" : "");
	if (*ch->text)
		sb_addf(&text, "\n%s\n", ch->text);
	snprintf(link, sizeof(link), "/alerts/%lld", (long long)v[0].id);
	snprintf(key, sizeof(key), "state-%lld", (long long)log);
	memset(&ev, 0, sizeof(ev));
	ev.kind = ALERT_STATE_CHANGED;
	ev.rig = v[0].rig;
	ev.suite = v[0].suite;
	ev.metric = v[0].metric;
	ev.submitter = v[0].submitter;
	ev.line = v[0].line;
	ev.title = title.buf;
	ev.text = text.buf;
	ev.link = link;
	ev.dedup = key;
	ev.about = v[0].id;
	ev.state = ch->state;
	rc = alerts_emit_to(db, &ev, 0, notice, NULL, err, errlen);
	sb_release(&title);
	sb_release(&text);
	return rc == DB_ERR ? -1 : 0;
}

int alerts_state_commit(struct db *db, const struct db_alert_event *v,
			size_t n, const struct db_alert_change *ch, char *err,
			size_t errlen)
{
	int64_t *logs = xcalloc(n + 1, sizeof(*logs)), notice = 0;
	size_t i;
	int rc;

	rc = db_begin(db);
	for (i = 0; rc == DB_OK && i < n; i++)
		rc = db_alert_state_set(db, v[i].id, ch, &logs[i]);
	if (rc == DB_OK && notice_emit(db, v, n, ch, logs[0], &notice, err,
				       errlen))
		rc = DB_ERR;
	for (i = 0; rc == DB_OK && i < n; i++)
		rc = db_alert_log_notice(db, logs[i], notice);
	if (rc == DB_OK)
		rc = db_commit(db);
	else
		db_rollback(db);
	if (rc != DB_OK)
		snprintf(err, errlen, "cannot change the state of alert %lld: "
			 "database error", (long long)v[0].id);
	free(logs);
	return rc == DB_OK ? 0 : -1;
}

/* Alert id, one that has a triage, into *a (released by the caller):
 * OUT_OK, or the outcome with err; field names the field that gave id
 * (NULL: the path). */
static enum outcome alert_of(struct db *db, int64_t id, const char *field,
			     struct db_alert_event *a, char *err,
			     size_t errlen)
{
	char pre[32] = "";
	int rc;

	if (field)
		snprintf(pre, sizeof(pre), "field '%s': ", field);
	rc = db_alert_event_get(db, id, a);
	if (rc == DB_NOTFOUND) {
		snprintf(err, errlen, "%sunknown alert %lld", pre,
			 (long long)id);
		return field ? OUT_INVALID : OUT_NOTFOUND;
	}
	if (rc) {
		snprintf(err, errlen, "cannot read alert %lld: database error",
			 (long long)id);
		return OUT_ERROR;
	}
	if (db_alert_kind_notice(a->kind)) {
		snprintf(err, errlen, "%sevent %lld is a notice (%s), not an "
			 "alert: it has no triage", pre, (long long)id,
			 a->kind);
		db_alert_event_release(a);
		return OUT_INVALID;
	}
	return OUT_OK;
}

/* A commit id: 7 to 64 hex digits. */
static int commit_ok(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return !s[n] && n >= 7 && n <= 64;
}

/* What t may say at all: OUT_OK or OUT_INVALID / OUT_TOOBIG with err. */
static enum outcome triage_check(const struct alert_triage *t, int64_t id,
				 char *err, size_t errlen)
{
	int fixed = t->state && !strcmp(t->state, "fixed");
	int dup = t->state && !strcmp(t->state, "duplicate");
	char why[200];

	if (t->state && !strcmp(t->state, "closed"))
		snprintf(err, errlen, "field 'state': 'closed' is klab's own: "
			 "a fixed alert closes itself when its metric is back "
			 "to its level");
	else if (!alerts_state_settable(t->state))
		snprintf(err, errlen, "field 'state': expected new, "
			 "acknowledged, invalid, fixed or duplicate, got "
			 "'%.64s'", nz(t->state));
	else if (!fixed && (*nz(t->commit) || *nz(t->kernel)))
		snprintf(err, errlen, "field '%s': only with state 'fixed'",
			 *nz(t->commit) ? "commit" : "kernel");
	else if (fixed && !*nz(t->commit) && !*nz(t->kernel))
		snprintf(err, errlen, "field 'commit' or 'kernel': say what "
			 "fixed it");
	else if (*nz(t->commit) && !commit_ok(t->commit))
		snprintf(err, errlen, "field 'commit': expected a commit id "
			 "(7 to 64 lowercase hex digits), got '%.80s'",
			 t->commit);
	else if (*nz(t->kernel) && ident_checks(IDENT_KERNEL, t->kernel, why,
						sizeof(why)))
		snprintf(err, errlen, "field 'kernel': %s", why);
	else if (!dup && t->of)
		snprintf(err, errlen, "field 'of': only with state "
			 "'duplicate'");
	else if (dup && t->of <= 0)
		snprintf(err, errlen, "field 'of': the alert this one repeats "
			 "is required");
	else if (dup && t->of == id)
		snprintf(err, errlen, "field 'of': alert %lld cannot be a "
			 "duplicate of itself", (long long)id);
	else if (strlen(nz(t->comment)) > ALERT_MAX_COMMENT) {
		snprintf(err, errlen, "field 'comment': longer than %d bytes",
			 ALERT_MAX_COMMENT);
		return OUT_TOOBIG;
	} else
		return OUT_OK;
	return OUT_INVALID;
}

/* The original *of repeats (duplicates followed to the first that is
 * not one); refused when that is id itself, a loop. */
static enum outcome dup_root(struct db *db, int64_t id, int64_t *of,
			     char *err, size_t errlen)
{
	struct db_alert_event o;
	enum outcome out;
	int i;

	for (i = 0; i < MAX_DUP_CHAIN; i++) {
		out = alert_of(db, *of, "of", &o, err, errlen);
		if (out != OUT_OK)
			return out;
		if (strcmp(o.state, "duplicate") || !o.duplicate_of) {
			db_alert_event_release(&o);
			break;
		}
		*of = o.duplicate_of;
		db_alert_event_release(&o);
	}
	if (*of != id)
		return OUT_OK;
	snprintf(err, errlen, "field 'of': alert %lld is itself a duplicate "
		 "of alert %lld: that would be a loop", (long long)*of,
		 (long long)id);
	return OUT_INVALID;
}

/* 1 when a is already as ch would leave it. */
static int same_state(const struct db_alert_event *a,
		      const struct db_alert_change *ch)
{
	return !strcmp(a->state, ch->state) &&
	       !strcmp(a->fixed_commit, ch->commit) &&
	       !strcmp(a->fixed_kernel, ch->kernel) &&
	       a->duplicate_of == ch->duplicate_of;
}

/* The alerts ch changes: a, and with group the rest of its group (the
 * original of a duplicate left out), each not already so, the one
 * named first (the notice's).  *v (n) the caller frees with
 * db_alert_events_free. */
static int triage_targets(struct db *db, const struct db_alert_event *a,
			  int group, const struct db_alert_change *ch,
			  struct db_alert_event **v, size_t *n)
{
	struct db_alert_event *all = NULL;
	struct db_alert_filter f;
	size_t nall = 0, i, pass;
	int rc, named;

	memset(&f, 0, sizeof(f));
	f.group = a->group_id;
	f.alerts_only = 1;
	if (group) {
		rc = db_alert_event_list(db, &f, MAX_GROUP, &all, &nall);
	} else {
		all = xcalloc(1, sizeof(*all));
		rc = db_alert_event_get(db, a->id, all);
		nall = rc ? 0 : 1;
	}
	*v = xcalloc(nall + 1, sizeof(**v));
	*n = 0;
	/* pass 0 takes the one named, pass 1 the rest */
	for (pass = 0; !rc && pass < 2; pass++)
		for (i = 0; i < nall; i++) {
			named = all[i].id == a->id;
			if (!all[i].kind || (pass ? named : !named) ||
			    same_state(&all[i], ch) ||
			    all[i].id == ch->duplicate_of)
				continue;
			(*v)[(*n)++] = all[i];
			memset(&all[i], 0, sizeof(all[i]));	/* moved */
		}
	db_alert_events_free(all, nall);
	return rc ? -1 : 0;
}

enum outcome alerts_triage(struct db *db, const struct caller *c, int64_t id,
			   const struct alert_triage *t, char *err,
			   size_t errlen)
{
	struct db_alert_change ch = { t->state, nz(t->commit), nz(t->kernel),
				      t->of, c->who, nz(t->comment) };
	struct db_alert_event a, *v = NULL;
	enum outcome out;
	size_t n = 0;

	out = alert_of(db, id, NULL, &a, err, errlen);
	if (out != OUT_OK)
		return out;
	out = triage_check(t, id, err, errlen);
	if (out == OUT_OK && ch.duplicate_of)
		out = dup_root(db, id, &ch.duplicate_of, err, errlen);
	if (out != OUT_OK)
		goto out;
	if (triage_targets(db, &a, t->group, &ch, &v, &n)) {
		snprintf(err, errlen, "cannot read the group of alert %lld: "
			 "database error", (long long)id);
		out = OUT_ERROR;
	} else if (!n) {
		snprintf(err, errlen, "alert %lld%s is already %s",
			 (long long)id, t->group ? " and its group" : "",
			 t->state);
		out = OUT_CONFLICT;
	} else if (alerts_state_commit(db, v, n, &ch, err, errlen)) {
		out = OUT_ERROR;
	} else {
		caller_audit(db, c, "alert triage", "alert", "%lld -> %s "
			     "(%zu alert%s)", (long long)id, t->state, n,
			     n == 1 ? "" : "s");
	}
	db_alert_events_free(v, n);
out:
	db_alert_event_release(&a);
	return out;
}

/* 1 when name is a user token's name. */
static int token_known(struct db *db, const char *name, int *known)
{
	struct db_token *v = NULL;
	size_t n = 0, i;

	*known = 0;
	if (db_token_list(db, &v, &n))
		return -1;
	for (i = 0; i < n && !*known; i++)
		*known = !strcmp(v[i].name, name);
	db_tokens_free(v, n);
	return 0;
}

enum outcome alerts_assign(struct db *db, const struct caller *c, int64_t id,
			   const char *assignee, char *err, size_t errlen)
{
	struct db_alert_event a;
	enum outcome out;
	int64_t log;
	int known = 1;

	out = alert_of(db, id, NULL, &a, err, errlen);
	if (out != OUT_OK)
		return out;
	db_alert_event_release(&a);
	if (!assignee) {
		snprintf(err, errlen, "field 'assignee': required (\"\" for "
			 "nobody)");
		return OUT_INVALID;
	}
	if (*assignee && token_known(db, assignee, &known)) {
		snprintf(err, errlen, "cannot read the tokens: database "
			 "error");
		return OUT_ERROR;
	}
	if (!known) {
		snprintf(err, errlen, "field 'assignee': no user token is "
			 "named '%.100s'", assignee);
		return OUT_INVALID;
	}
	if (db_alert_assign(db, id, assignee, c->who, &log)) {
		snprintf(err, errlen, "cannot assign alert %lld: database "
			 "error", (long long)id);
		return OUT_ERROR;
	}
	caller_audit(db, c, "alert assign", "alert", "%lld -> '%s'",
		     (long long)id, assignee);
	return OUT_OK;
}

enum outcome alerts_comment(struct db *db, const struct caller *c,
			    int64_t id, const char *text, char *err,
			    size_t errlen)
{
	struct db_alert_event a;
	enum outcome out;
	int64_t log;

	out = alert_of(db, id, NULL, &a, err, errlen);
	if (out != OUT_OK)
		return out;
	db_alert_event_release(&a);
	if (!text || !*text) {
		snprintf(err, errlen, "field 'text': the comment is required");
		return OUT_INVALID;
	}
	if (strlen(text) > ALERT_MAX_COMMENT) {
		snprintf(err, errlen, "field 'text': longer than %d bytes",
			 ALERT_MAX_COMMENT);
		return OUT_TOOBIG;
	}
	if (db_alert_comment(db, id, c->who, text, &log)) {
		snprintf(err, errlen, "cannot add a comment to alert %lld: "
			 "database error", (long long)id);
		return OUT_ERROR;
	}
	return OUT_OK;
}
