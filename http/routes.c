// SPDX-License-Identifier: MIT
/*
 * The route table: every URL klabd answers, with the role it needs and the
 * content types its POST accepts, in one place (git.c's command table).
 * http.c finds the route of each request here and dispatches to the
 * handler: JSON API handlers in api*.c, pages in web/.
 */
#include <string.h>

#include "http/api.h"
#include "http/auth.h"
#include "web/web.h"

static int page_home(struct req *rq, struct web_response *r)
{
	return web_home(rq->db, &rq->q, rq->arg, r);
}

static int page_kernels(struct req *rq, struct web_response *r)
{
	return web_kernels(rq->db, &rq->q, rq->arg, r);
}

static int page_runs(struct req *rq, struct web_response *r)
{
	return web_runs(rq->db, &rq->q, rq->arg, r);
}

static int page_steps(struct req *rq, struct web_response *r)
{
	return web_steps(rq->db, &rq->q, rq->arg, r);
}

static int page_rigs(struct req *rq, struct web_response *r)
{
	/* a signed-in operator gets the forms, with the session's CSRF */
	return web_rigs_forms(rq->db, &rq->q, rq->role == ROLE_OPERATOR &&
			      rq->csrf[0] ? rq->csrf : NULL, r);
}

static int page_compare(struct req *rq, struct web_response *r)
{
	return web_compare(rq->db, &rq->q, rq->arg, r);
}

static int page_history(struct req *rq, struct web_response *r)
{
	return web_history(rq->db, &rq->q, rq->arg, r);
}

static int page_style(struct req *rq, struct web_response *r)
{
	return web_style(rq->db, &rq->q, rq->arg, r);
}

/* Shorthands for the role column. */
#define OPEN ROLE_OPEN
#define READ ROLE_READ
#define AGENT ROLE_AGENT
#define SUBMIT ROLE_SUBMITTER
#define OPER ROLE_OPERATOR
#define FORM "application/x-www-form-urlencoded"
#define IMPORT_TYPES "application/json text/plain application/octet-stream"
#define SUBMIT_TYPES "application/json text/plain application/mbox"

/* The whole map of klabd: every path it answers, who may call it and, for
 * posts, the content types it reads (NULL: application/json). */
static const struct route routes[] = {
	{ "GET", "/api/health", OPEN, api_health, NULL },
	{ "GET", "/api/status", OPER, api_status, NULL },
	{ "POST", "/api/import", SUBMIT, api_import, IMPORT_TYPES },
	{ "GET", "/api/kernels", READ, api_kernels, NULL },
	{ "GET", "/api/kernels/**", READ, api_kernels, NULL },
	{ "POST", "/api/kernels", OPER, api_kernel_put, NULL },
	{ "GET", "/api/rigs", READ, api_rigs, NULL },
	{ "GET", "/api/rigs/*", READ, api_rigs, NULL },
	{ "POST", "/api/rigs", OPER, api_rig_put, NULL },
	{ "POST", "/api/rigs/*/online", OPER, api_rig_online, NULL },
	{ "POST", "/api/agent/register", AGENT, api_agent_register, NULL },
	{ "GET", "/api/agent/next", AGENT, api_agent_next, NULL },
	{ "POST", "/api/agent/next", AGENT, api_agent_next, NULL },
	{ "POST", "/api/agent/jobs/*/kexec", AGENT, api_agent_kexec, NULL },
	{ "POST", "/api/agent/jobs/*/results", AGENT, api_agent_results, NULL },
	{ "POST", "/api/agent/jobs/*/fail", AGENT, api_agent_fail, NULL },
	{ "GET", "/api/agent/files/*", AGENT, api_agent_file, NULL },
	{ "POST", "/api/jobs", SUBMIT, api_job_add, NULL },
	{ "GET", "/api/jobs", READ, api_jobs, NULL },
	{ "GET", "/api/jobs/*", READ, api_jobs, NULL },
	{ "GET", "/api/steps", READ, api_steps, NULL },
	{ "GET", "/api/catalog/available", READ, api_catalog_available, NULL },
	{ "POST", "/api/catalog/debian", OPER, api_catalog_debian, NULL },
	{ "POST", "/api/builds", SUBMIT, api_build_add, NULL },
	{ "GET", "/api/builds", READ, api_builds, NULL },
	{ "GET", "/api/builds/*", READ, api_build_get, NULL },
	{ "GET", "/api/builds/*/log", READ, api_build_log, NULL },
	{ "GET", "/api/suites", READ, api_suites, NULL },
	{ "POST", "/api/suites", OPER, api_suite_put, NULL },
	{ "GET", "/api/runs", READ, api_runs, NULL },
	{ "GET", "/api/runs/*", READ, api_runs, NULL },
	{ "GET", "/api/runs/*/raw/**", READ, api_run_raw, NULL },
	{ "GET", "/api/metrics", READ, api_metrics, NULL },
	{ "GET", "/api/compare", READ, api_compare, NULL },
	{ "GET", "/api/history", READ, api_history, NULL },
	{ "POST", "/api/comparisons", SUBMIT, api_comparison_add, NULL },
	{ "GET", "/api/comparisons", READ, api_comparisons, NULL },
	{ "GET", "/api/comparisons/*", READ, api_comparisons, NULL },
	{ "POST", "/api/submissions", SUBMIT, api_submission_add,
	  SUBMIT_TYPES },
	{ "GET", "/api/submissions", READ, api_submissions, NULL },
	{ "GET", "/api/submissions/*", READ, api_submissions, NULL },
	{ "POST", "/api/submissions/*/cancel", SUBMIT, api_submission_cancel,
	  NULL },
	{ "GET", "/api/queue", READ, api_queue, NULL },
	{ "POST", "/api/bisections", SUBMIT, api_bisection_add, NULL },
	{ "GET", "/api/bisections", READ, api_bisections, NULL },
	{ "GET", "/api/bisections/*", READ, api_bisections, NULL },
	{ "GET", "/api/audit", OPER, api_audit, NULL },
	{ "POST", "/api/tracks", OPER, api_track_add, NULL },
	{ "GET", "/api/tracks", READ, api_tracks, NULL },
	{ "GET", "/api/tracks/*", READ, api_tracks, NULL },
	{ "DELETE", "/api/tracks/*", OPER, api_track_delete, NULL },
	{ "GET", "/api/changepoints", READ, api_changepoints, NULL },
	{ "POST", "/api/subscriptions", SUBMIT, api_subscription_add, NULL },
	{ "GET", "/api/subscriptions", SUBMIT, api_subscriptions, NULL },
	{ "DELETE", "/api/subscriptions/*", SUBMIT, api_subscription_delete,
	  NULL },
	{ "POST", "/api/subscriptions/*/test", SUBMIT, api_subscription_test,
	  NULL },
	{ "GET", "/api/alerts", READ, api_alerts, NULL },
	{ "POST", "/api/alerts", OPER, api_alert_emit, NULL },
	{ "GET", "/api/alerts/*", READ, api_alert_get, NULL },
	{ "POST", "/api/alerts/*/state", SUBMIT, api_alert_state, NULL },
	{ "POST", "/api/alerts/*/assign", SUBMIT, api_alert_assign, NULL },
	{ "POST", "/api/alerts/*/comments", SUBMIT, api_alert_comment, NULL },
	{ "GET", "/", READ, page_home, NULL },
	{ "GET", "/kernels", READ, page_kernels, NULL },
	{ "GET", "/kernels/**", READ, page_kernels, NULL },
	{ "GET", "/runs", READ, page_runs, NULL },
	{ "GET", "/runs/*", READ, page_runs, NULL },
	{ "GET", "/steps", READ, page_steps, NULL },
	{ "GET", "/rigs", READ, page_rigs, NULL },
	{ "POST", "/rigs/*/online", OPER, web_rig_online_post, FORM },
	{ "GET", "/compare", READ, page_compare, NULL },
	{ "GET", "/history", READ, page_history, NULL },
	{ "GET", "/comparisons/*", READ, page_comparison, NULL },
	{ "GET", "/alerts", READ, page_alerts, NULL },
	{ "GET", "/alerts.atom", READ, page_alerts_atom, NULL },
	{ "GET", "/alerts/*", READ, page_alert, NULL },
	{ "POST", "/alerts/*/state", SUBMIT, web_alert_state_post, FORM },
	{ "POST", "/alerts/*/assign", SUBMIT, web_alert_assign_post, FORM },
	{ "POST", "/alerts/*/comment", SUBMIT, web_alert_comment_post, FORM },
	{ "GET", "/subscriptions", READ, page_subscriptions, NULL },
	{ "POST", "/subscriptions", SUBMIT, web_subscription_post, FORM },
	{ "POST", "/subscriptions/*/delete", SUBMIT,
	  web_subscription_delete_post, FORM },
	{ "POST", "/subscriptions/*/test", SUBMIT, web_subscription_test_post,
	  FORM },
	{ "GET", "/submit", READ, page_submit_form, NULL },
	{ "POST", "/submit", SUBMIT, page_submit_post, FORM },
	{ "GET", "/submissions", READ, page_submissions, NULL },
	{ "GET", "/submissions/*", READ, page_submissions, NULL },
	{ "POST", "/submissions/*/cancel", SUBMIT, page_submission_cancel,
	  FORM },
	{ "GET", "/queue", READ, page_queue, NULL },
	{ "GET", "/bisections", READ, page_bisections, NULL },
	{ "POST", "/bisections", SUBMIT, page_bisection_post, FORM },
	{ "GET", "/bisections/*", READ, page_bisections, NULL },
	{ "POST", "/submissions/*/bisect", SUBMIT, page_bisect_submission,
	  FORM },
	{ "GET", "/login", OPEN, web_login_form, NULL },
	{ "POST", "/login", OPEN, web_login_post, FORM },
	{ "POST", "/logout", SUBMIT, web_logout_post, FORM },
	{ "GET", "/style.css", OPEN, page_style, NULL },
};

const struct route *http_routes(size_t *n)
{
	*n = sizeof(routes) / sizeof(routes[0]);
	return routes;
}

/*
 * Match path against pattern: '*' takes one non-empty segment, a final
 * '**' the non-empty rest.  The first two captures go to buf (NUL
 * separated) and *arg, *arg2.  1 on a match.
 */
static int route_match(const char *pat, const char *path, char *buf,
		       size_t len, const char **arg, const char **arg2)
{
	const char **cap[2] = { arg, arg2 };
	size_t used = 0, n;
	int ncap = 0;

	while (*pat) {
		if (pat[0] != '*') {
			if (*pat++ != *path++)
				return 0;
			continue;
		}
		n = pat[1] == '*' ? strlen(path) : strcspn(path, "/");
		if (!n || used + n + 1 > len || ncap == 2)
			return 0;
		memcpy(buf + used, path, n);
		buf[used + n] = '\0';
		*cap[ncap++] = buf + used;
		used += n + 1;
		path += n;
		pat += pat[1] == '*' ? 2 : 1;
	}
	return *path == '\0';
}

/* Find the route for method and path.  405 via *bad_method. */
const struct route *route_find(const char *method, const char *path,
			       char *buf, size_t len, const char **arg,
			       const char **arg2, int *bad_method)
{
	size_t i;

	*bad_method = 0;
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		const struct route *rt = &routes[i];

		*arg = *arg2 = "";
		if (!route_match(rt->pattern, path, buf, len, arg, arg2))
			continue;
		if (strcmp(method, rt->method) &&
		    !(strcmp(method, "HEAD") == 0 &&
		      !strcmp(rt->method, "GET"))) {
			*bad_method = 1;
			continue;
		}
		return rt;
	}
	*arg = *arg2 = "";
	return NULL;
}
