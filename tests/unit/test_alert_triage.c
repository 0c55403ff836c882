// SPDX-License-Identifier: MIT
/*
 * Unit tests for the triage of alerts (flow/alerts_triage.c,
 * flow/alerts_fixed.c) on a temporary database: the alerts of one change
 * share a group; a change of state is logged and raises one notice (for
 * the alert or its whole group); hostile fields are refused naming the
 * field; duplicates point at the original and never loop; the mail of a
 * group is one summary; and a fixed change point closes itself when the
 * line is back to the level before the change (the verdicts' "same"),
 * not before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/alerts.h"
#include "db_testlib.h"
#include "db/changepoints.h"
#include "db/tokens.h"
#include "flow/alerts.h"
#include "flow/alerts_int.h"
#include "klabd/outcome.h"

static const struct caller alice = { "alice", 0 };

/* A change point alert of metric in group; its id. */
static int64_t cp(struct db *db, const char *metric, const char *group)
{
	struct alert_event ev = { .kind = ALERT_CHANGE_POINT, .rig = "r1",
				  .suite = "s1", .metric = metric,
				  .title = metric, .dedup = metric,
				  .before = "k4", .after = "k5",
				  .group = group };
	int64_t id = 0;
	char err[256];

	assert_int_equal(alerts_emit_to(db, &ev, 0, &id, NULL, err,
					sizeof(err)), DB_OK);
	return id;
}

static void get(struct db *db, int64_t id, struct db_alert_event *e)
{
	assert_int_equal(db_alert_event_get(db, id, e), DB_OK);
}

static void test_group(void **state)
{
	struct fx *f = *state;
	int64_t a = cp(f->db, "m.a", "cp/r1/k4/k5"), b = cp(f->db, "m.b",
		"cp/r1/k4/k5"), c = cp(f->db, "m.c", NULL);
	struct db_alert_event e;

	get(f->db, b, &e);
	assert_int_equal(e.group_id, a);
	assert_string_equal(e.state, "new");
	assert_string_equal(e.kernel_after, "k5");
	db_alert_event_release(&e);
	get(f->db, c, &e);
	assert_int_equal(e.group_id, c);
	db_alert_event_release(&e);
}

/* The outcome of a triage of id as t, err checked to hold want. */
static void refused(struct db *db, int64_t id, struct alert_triage t,
		    enum outcome o, const char *want)
{
	char err[600] = "";

	assert_int_equal(alerts_triage(db, &alice, id, &t, err, sizeof(err)),
			 o);
	if (!strstr(err, want))
		fail_msg("'%s' does not say '%s'", err, want);
}

static void test_refusals(void **state)
{
	struct fx *f = *state;
	int64_t a = cp(f->db, "m.a", NULL);
	char big[ALERT_MAX_COMMENT + 2];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	refused(f->db, a, (struct alert_triage){ .state = "nope" },
		OUT_INVALID, "field 'state': expected new, acknowledged");
	refused(f->db, a, (struct alert_triage){ .state = NULL },
		OUT_INVALID, "field 'state'");
	refused(f->db, a, (struct alert_triage){ .state = "closed" },
		OUT_INVALID, "'closed' is klab's own");
	refused(f->db, 99, (struct alert_triage){ .state = "invalid" },
		OUT_NOTFOUND, "unknown alert 99");
	refused(f->db, a, (struct alert_triage){ .state = "fixed" },
		OUT_INVALID, "field 'commit' or 'kernel'");
	refused(f->db, a, (struct alert_triage){ .state = "fixed",
		.commit = "HEAD~1" }, OUT_INVALID, "field 'commit'");
	refused(f->db, a, (struct alert_triage){ .state = "fixed",
		.kernel = "a b" }, OUT_INVALID, "field 'kernel'");
	refused(f->db, a, (struct alert_triage){ .state = "acknowledged",
		.commit = "abcdef1" }, OUT_INVALID,
		"field 'commit': only with state 'fixed'");
	refused(f->db, a, (struct alert_triage){ .state = "duplicate" },
		OUT_INVALID, "field 'of'");
	refused(f->db, a, (struct alert_triage){ .state = "duplicate",
		.of = a }, OUT_INVALID, "cannot be a duplicate of itself");
	refused(f->db, a, (struct alert_triage){ .state = "duplicate",
		.of = 999 }, OUT_INVALID, "field 'of': unknown alert 999");
	refused(f->db, a, (struct alert_triage){ .state = "invalid",
		.of = 1 }, OUT_INVALID, "field 'of': only with state");
	refused(f->db, a, (struct alert_triage){ .state = "invalid",
		.comment = big }, OUT_TOOBIG, "field 'comment'");
	refused(f->db, a, (struct alert_triage){ .state = "new" },
		OUT_CONFLICT, "is already new");
}

static void test_state_group(void **state)
{
	struct fx *f = *state;
	int64_t a = cp(f->db, "m.a", "g"), b = cp(f->db, "m.b", "g");
	struct alert_triage t = { .state = "acknowledged", .group = 1,
				  .comment = "mine" };
	struct db_alert_filter nf = { .alerts_only = -1 };
	struct db_alert_event e, *v;
	struct db_alert_log *l;
	size_t n, nl;
	char err[600];

	assert_int_equal(alerts_triage(f->db, &alice, b, &t, err,
				       sizeof(err)), OUT_OK);
	get(f->db, a, &e);
	assert_string_equal(e.state, "acknowledged");
	db_alert_event_release(&e);
	/* one notice, about the alert named, with its new state */
	assert_int_equal(db_alert_event_list(f->db, &nf, 0, &v, &n), DB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].kind, ALERT_STATE_CHANGED);
	assert_int_equal(v[0].about, b);
	assert_string_equal(v[0].state, "acknowledged");
	assert_non_null(strstr(v[0].title, "alert 2 and 1 more of group 1 "
			       "acknowledged by alice"));
	/* each alert's log says who and why, and names the notice */
	assert_int_equal(db_alert_log_list(f->db, a, &l, &nl), DB_OK);
	assert_int_equal(nl, 1);
	assert_string_equal(l[0].who, "alice");
	assert_string_equal(l[0].text, "mine");
	assert_int_equal(l[0].notice, v[0].id);
	db_alert_logs_free(l, nl);
	/* a notice has no triage */
	refused(f->db, v[0].id, (struct alert_triage){ .state = "invalid" },
		OUT_INVALID, "is a notice (alert_state), not an alert");
	db_alert_events_free(v, n);
	assert_int_equal(alerts_triage(f->db, &alice, b, &t, err,
				       sizeof(err)), OUT_CONFLICT);
	/* the one named alone */
	t.state = "fixed";
	t.kernel = "6.1.150";
	t.group = 0;
	assert_int_equal(alerts_triage(f->db, &alice, a, &t, err,
				       sizeof(err)), OUT_OK);
	get(f->db, a, &e);
	assert_string_equal(e.fixed_kernel, "6.1.150");
	db_alert_event_release(&e);
	get(f->db, b, &e);
	assert_string_equal(e.state, "acknowledged");
	db_alert_event_release(&e);
}

static void test_duplicates(void **state)
{
	struct fx *f = *state;
	int64_t a = cp(f->db, "m.a", NULL), b = cp(f->db, "m.b", NULL),
		c = cp(f->db, "m.c", NULL);
	struct alert_triage t = { .state = "duplicate", .of = b };
	struct db_alert_event e;
	char err[600];

	assert_int_equal(alerts_triage(f->db, &alice, a, &t, err,
				       sizeof(err)), OUT_OK);
	/* b cannot repeat a, which repeats b */
	refused(f->db, b, (struct alert_triage){ .state = "duplicate",
		.of = a }, OUT_INVALID, "that would be a loop");
	/* c repeats a: the original is b */
	t.of = a;
	assert_int_equal(alerts_triage(f->db, &alice, c, &t, err,
				       sizeof(err)), OUT_OK);
	get(f->db, c, &e);
	assert_int_equal(e.duplicate_of, b);
	db_alert_event_release(&e);
}

static void test_assign_comment(void **state)
{
	struct fx *f = *state;
	int64_t a = cp(f->db, "m.a", NULL);
	struct db_alert_event e;
	char err[600];

	assert_int_equal(db_token_add(f->db, "bob", "submitter", "00", err,
				      sizeof(err)), DB_OK);
	assert_int_equal(alerts_assign(f->db, &alice, a, "carol", err,
				       sizeof(err)), OUT_INVALID);
	assert_non_null(strstr(err, "field 'assignee': no user token"));
	assert_int_equal(alerts_assign(f->db, &alice, a, "bob", err,
				       sizeof(err)), OUT_OK);
	get(f->db, a, &e);
	assert_string_equal(e.assignee, "bob");
	db_alert_event_release(&e);
	assert_int_equal(alerts_comment(f->db, &alice, a, "", err,
					sizeof(err)), OUT_INVALID);
	assert_int_equal(alerts_comment(f->db, &alice, 77, "x", err,
					sizeof(err)), OUT_NOTFOUND);
	assert_int_equal(alerts_comment(f->db, &alice, a, "seen", err,
					sizeof(err)), OUT_OK);
}

static void test_group_mail(void **state)
{
	struct alerts_conf c = { .smtp_from = "klab@lab.example",
				 .public_url = "http://lab:8080" };
	struct db_alert_sub s = { .id = 3, .channel = "email",
				  .target = "alice@example.org" };
	struct db_alert_event ev[2] = {
		{ .id = 7, .kind = "change_point", .title = "cp in m.a",
		  .text = "a", .link = "", .group_id = 7 },
		{ .id = 8, .kind = "change_point", .title = "cp in m.b",
		  .text = "b", .link = "/history", .group_id = 7 },
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	sb_init(&sb);
	alerts_mail_compose_group(&sb, &c, &s, ev, 2, 5);
	assert_non_null(strstr(sb.buf, "Subject: [klab] 2 alerts of one "
			       "change (group 7): cp in m.a\r\n"));
	assert_non_null(strstr(sb.buf, "  alert 8: cp in m.b\r\n"));
	assert_non_null(strstr(sb.buf, "http://lab:8080/alerts?group=7"));
	assert_non_null(strstr(sb.buf, "http://lab:8080/history\r\n"));
	sb_release(&sb);
}

/* The line: 5 points at 100, 5 at 130 (the change at k5), then count
 * points at level; each kernel one point, noise 0.1%. */
static size_t line(struct db_sample *s, size_t back, double level)
{
	static char names[20][8];
	size_t i, n = 10 + back;

	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "k%zu", i);
		memset(&s[i], 0, sizeof(s[i]));
		s[i].kernel = names[i];
		s[i].unit = "MB/s";
		s[i].dir = DIR_HIGHER;
		s[i].rigconf = "";
		s[i].value = (i < 5 ? 100 : i < 10 ? 130 : level) +
			     (double)(i % 3) * 0.1;
	}
	return n;
}

static void test_fixed_closes(void **state)
{
	struct fx *f = *state;
	int64_t a = cp(f->db, "m.rate", NULL);
	struct alert_triage t = { .state = "fixed", .commit = "abcdef12" };
	struct db_changepoint cps[2] = { { .kernel_after = "k5" },
					 { .kernel_after = "k10" } };
	struct db_alert_event e;
	struct db_alert_log *l;
	struct db_sample s[20];
	size_t n, nl;
	char err[600];

	/* not fixed: never closed */
	n = line(s, 5, 100);
	assert_int_equal(alerts_fixed_check(f->db, "r1", "s1", "m.rate", s, n,
					    cps, 2), 0);
	assert_int_equal(alerts_triage(f->db, &alice, a, &t, err,
				       sizeof(err)), OUT_OK);
	/* still at 130, or no later change: stays fixed */
	n = line(s, 5, 130);
	assert_int_equal(alerts_fixed_check(f->db, "r1", "s1", "m.rate", s, n,
					    cps, 1), 0);
	n = line(s, 5, 100);
	assert_int_equal(alerts_fixed_check(f->db, "r1", "s1", "m.rate", s, n,
					    cps, 1), 0);
	/* back to 100 after a later change point: closed by klab */
	assert_int_equal(alerts_fixed_check(f->db, "r1", "s1", "m.rate", s, n,
					    cps, 2), 1);
	get(f->db, a, &e);
	assert_string_equal(e.state, "closed");
	assert_string_equal(e.fixed_commit, "abcdef12");
	db_alert_event_release(&e);
	assert_int_equal(db_alert_log_list(f->db, a, &l, &nl), DB_OK);
	assert_int_equal(nl, 2);
	assert_string_equal(l[1].who, ALERT_BY_KLAB);
	assert_non_null(strstr(l[1].text, "m.rate is back to its level"));
	db_alert_logs_free(l, nl);
	/* closed: not looked at again */
	assert_int_equal(alerts_fixed_check(f->db, "r1", "s1", "m.rate", s, n,
					    cps, 2), 0);
}

int main(void)
{
#define DB_TEST(t) cmocka_unit_test_setup_teardown(t, dbfix_setup, \
						    dbfix_teardown)
	const struct CMUnitTest tests[] = {
		DB_TEST(test_group),
		DB_TEST(test_refusals),
		DB_TEST(test_state_group),
		DB_TEST(test_duplicates),
		DB_TEST(test_assign_comment),
		cmocka_unit_test(test_group_mail),
		DB_TEST(test_fixed_closes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
