/* SPDX-License-Identifier: MIT */
/*
 * The pages of patch submissions and of the lab's queue: the /submit
 * form, the status page /submissions/ID, the list /submissions, and
 * /queue.  The HTTP layer loads and judges what the pages show (web/
 * includes no controller header); these files only render it.
 */
#ifndef KLAB_WEB_PAGE_SUBMIT_H
#define KLAB_WEB_PAGE_SUBMIT_H

#include "db/builds.h"
#include "db/comparisons.h"
#include "db/submissions.h"
#include "web.h"

struct comparison;

/* One cell of a submission: its comparison run, judged (cmp NULL: not). */
struct web_sub_cell {
	const struct db_sub_cell *cell;
	const struct db_comparison *c;
	const struct comparison *cmp;
	const char *verdict, *summary;
};

struct web_sub {
	const struct db_submission *s;
	const struct db_sub_patch *patches;
	size_t npatches;
	const struct db_sub_stage *stages;
	size_t nstages;
	const struct web_sub_cell *cells;
	size_t ncells;
	const struct db_build *build[2];	/* base, patched; NULL: none */
	const struct db_queue_job *jobs;	/* its cells' jobs */
	size_t njobs;
	int ahead;		/* running submissions before it */
	const char *report;	/* the text report (mail-ready) */
	const char *csrf;	/* a cancel button for who may, or NULL */
};

/* /submissions/ID?format=html|text: the status page (reloads itself
 * while running) or the text report. */
int web_submission(const struct web_sub *w, struct query *q,
		   struct web_response *r);
/* /submissions: newest first. */
int web_submissions(const struct db_submission *v, size_t n,
		    struct query *q, struct web_response *r);

/* What the /submit form offers and holds. */
struct web_submit_form {
	const char *who;	/* the signed-in submitter */
	const char *csrf;
	const char *bases;	/* "debian-6.1, debian-6.12, NAME, ..." */
	const char *rigs, *suites;	/* the defaults, "" */
	const char *error;	/* why the last post was refused, or NULL */
	const struct query *q;	/* the last post, to fill the form again */
};
/* The form, with status (200, or the 4xx of a refused post). */
int web_submit_form(const struct web_submit_form *f, int status,
		    struct web_response *r);

/* The last lines of a rig's console, as the rig manager has them. */
struct web_console {
	const char *rig;
	const char *tail;
};
/* /queue?format=html|json: per rig what runs and what waits (in the
 * order the rig takes it), builds in progress. */
int web_queue(struct db *db, const struct web_console *con, size_t ncon,
	      struct query *q, struct web_response *r);

#endif
