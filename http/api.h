/* SPDX-License-Identifier: MIT */
/*
 * api: every route handler, one file per resource, each a row of the
 * route table (routes.c).  JSON handlers are api_*, pages page_*, the web
 * forms' posts web_*_post.  Each fills r and returns its HTTP status; the
 * work itself is a service of lab/ or flow/, called with plain inputs
 * and a caller (api_caller, api_util.h), whose outcome api_util.c maps to
 * a status in one table.
 */
#ifndef KLAB_HTTP_API_H
#define KLAB_HTTP_API_H

#include "http/req.h"

/* api.c: health, status, imports, runs, metrics, compare, history */
int api_health(struct req *rq, struct web_response *r);
int api_status(struct req *rq, struct web_response *r);
int api_import(struct req *rq, struct web_response *r);
int api_runs(struct req *rq, struct web_response *r);
int api_run_raw(struct req *rq, struct web_response *r);
int api_metrics(struct req *rq, struct web_response *r);
int api_compare(struct req *rq, struct web_response *r);
int api_history(struct req *rq, struct web_response *r);
/* api_inventory.c: the lab's records (kernels, rigs, suites) */
int api_kernels(struct req *rq, struct web_response *r);
int api_kernel_put(struct req *rq, struct web_response *r);
int api_rigs(struct req *rq, struct web_response *r);
int api_rig_put(struct req *rq, struct web_response *r);
int api_suites(struct req *rq, struct web_response *r);
int api_suite_put(struct req *rq, struct web_response *r);

/* api_agent.c: what a rig's agent asks */
int api_agent_register(struct req *rq, struct web_response *r);
int api_agent_next(struct req *rq, struct web_response *r);
int api_agent_kexec(struct req *rq, struct web_response *r);
int api_agent_results(struct req *rq, struct web_response *r);
int api_agent_fail(struct req *rq, struct web_response *r);
int api_agent_file(struct req *rq, struct web_response *r);
/* api_jobs.c: jobs, an offline rig back, Debian's kernels */
int api_job_add(struct req *rq, struct web_response *r);
int api_steps(struct req *rq, struct web_response *r);
int api_jobs(struct req *rq, struct web_response *r);
int api_rig_online(struct req *rq, struct web_response *r);
int api_catalog_available(struct req *rq, struct web_response *r);
int api_catalog_debian(struct req *rq, struct web_response *r);
/* api_builds.c: kernel builds */
int api_build_add(struct req *rq, struct web_response *r);
int api_builds(struct req *rq, struct web_response *r);
int api_build_get(struct req *rq, struct web_response *r);
int api_build_log(struct req *rq, struct web_response *r);
/* api_comparisons.c: comparison runs with adaptive repetition */
int api_comparison_add(struct req *rq, struct web_response *r);
int api_comparisons(struct req *rq, struct web_response *r);
int page_comparison(struct req *rq, struct web_response *r);
/* api_submissions.c: submissions, the /submit form, the queue */
int api_submission_add(struct req *rq, struct web_response *r);
int api_submissions(struct req *rq, struct web_response *r);
int api_submission_cancel(struct req *rq, struct web_response *r);
int api_queue(struct req *rq, struct web_response *r);
int page_submit_form(struct req *rq, struct web_response *r);
int page_submit_post(struct req *rq, struct web_response *r);
int page_submissions(struct req *rq, struct web_response *r);
int page_submission_cancel(struct req *rq, struct web_response *r);
int page_queue(struct req *rq, struct web_response *r);
/* api_bisect.c: bisections */
int api_bisection_add(struct req *rq, struct web_response *r);
int api_bisections(struct req *rq, struct web_response *r);
int page_bisections(struct req *rq, struct web_response *r);
int page_bisect_submission(struct req *rq, struct web_response *r);
int page_bisection_post(struct req *rq, struct web_response *r);
/* api_track.c: POST /api/tracks (operators), GET /api/tracks[/ID],
 * DELETE /api/tracks/ID (operators); api_changepoints.c: GET
 * /api/changepoints. */
int api_track_add(struct req *rq, struct web_response *r);
int api_tracks(struct req *rq, struct web_response *r);
int api_track_delete(struct req *rq, struct web_response *r);
int api_changepoints(struct req *rq, struct web_response *r);
/* api_alerts.c: subscriptions and alerts */
int api_subscription_add(struct req *rq, struct web_response *r);
int api_subscriptions(struct req *rq, struct web_response *r);
int api_subscription_delete(struct req *rq, struct web_response *r);
int api_subscription_test(struct req *rq, struct web_response *r);
int api_alerts(struct req *rq, struct web_response *r);
int api_alert_emit(struct req *rq, struct web_response *r);
int page_alerts(struct req *rq, struct web_response *r);
int page_alerts_atom(struct req *rq, struct web_response *r);
/* api_alert_triage.c: one alert, its triage by the API and the page */
int api_alert_get(struct req *rq, struct web_response *r);
int api_alert_state(struct req *rq, struct web_response *r);
int api_alert_assign(struct req *rq, struct web_response *r);
int api_alert_comment(struct req *rq, struct web_response *r);
int page_alert(struct req *rq, struct web_response *r);
int web_alert_state_post(struct req *rq, struct web_response *r);
int web_alert_assign_post(struct req *rq, struct web_response *r);
int web_alert_comment_post(struct req *rq, struct web_response *r);
/* alerts_pages.c: /subscriptions and its forms */
int page_subscriptions(struct req *rq, struct web_response *r);
int web_subscription_post(struct req *rq, struct web_response *r);
int web_subscription_delete_post(struct req *rq, struct web_response *r);
int web_subscription_test_post(struct req *rq, struct web_response *r);
/* auth.c: the audit log, signing in and out */
int api_audit(struct req *rq, struct web_response *r);
int web_login_form(struct req *rq, struct web_response *r);
int web_login_post(struct req *rq, struct web_response *r);
int web_logout_post(struct req *rq, struct web_response *r);
int web_rig_online_post(struct req *rq, struct web_response *r);

#endif
