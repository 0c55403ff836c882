// SPDX-License-Identifier: MIT
/*
 * The checks of what a job runs (job_check.h): its suite must be a file
 * of workloads/suites/, its scale within klab-run's range, its scheduler
 * a name, and each kernel parameter it adds to the rig's command line
 * allowed by job_cmdline_allow (by default a short list of block-layer
 * and CPU knobs: klab.*, init= and the like never pass).  At start the
 * suites of workloads/suites/ are registered in the database.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "klabd/klabd.h"
#include "lab/job_check.h"
#include "lib/ident.h"
#include "workloads/suite.h"

/* Kernel parameters a job may add to the rig's command line unless the
 * configuration's job_cmdline_allow says otherwise: "key=" allows
 * key=VALUE, a bare word allows that flag. */
#define CMDLINE_ALLOW_DEFAULT "elevator= scsi_mod.use_blk_mq= " \
	"dm_mod.use_blk_mq= mq-deadline.fifo_batch= " \
	"block.events_dfl_poll_msecs= mitigations= transparent_hugepage= " \
	"nohz= maxcpus= quiet loglevel= ignore_loglevel"

/* Is word (KEY=VALUE or FLAG) in the space-separated allow-list? */
static int cmdline_word_ok(const char *allow, const char *w, size_t n)
{
	const char *eq = memchr(w, '=', n), *p = allow;
	size_t klen = eq ? (size_t)(eq - w) + 1 : n, e;

	while (*p) {
		p += strspn(p, " \t");
		e = strcspn(p, " \t");
		if (e == klen && !memcmp(p, w, klen))
			return 1;
		p += e;
	}
	return 0;
}

/* 0 when every word of cmdline is allowed, else -1 with err naming it. */
static int cmdline_check(const struct klabd *d, const char *cmdline,
			 char *err, size_t errlen)
{
	const char *allow = d->cmdline_allow ? d->cmdline_allow :
		CMDLINE_ALLOW_DEFAULT, *p = cmdline;
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
		"QRSTUVWXYZ0123456789_.,:=/-";
	size_t n;

	while (p && *p) {
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (!n)
			break;
		if (strspn(p, ok) < n || !cmdline_word_ok(allow, p, n)) {
			snprintf(err, errlen, "kernel parameter '%.*s' is not "
				 "allowed (job_cmdline_allow: %s)", (int)n, p,
				 allow);
			return -1;
		}
		p += n;
	}
	return 0;
}

enum outcome job_config_check(const struct klabd *d, double scale,
			      const char *scheduler, const char *cmdline,
			      char *err, size_t errlen)
{
	char why[600];

	if (scale != 0 && !(scale >= SUITE_SCALE_MIN &&
			    scale <= SUITE_SCALE_MAX)) {
		snprintf(err, errlen, "field 'scale': %g is not between %g and "
			 "%g (0 or none: the suite's own, 1)", scale,
			 SUITE_SCALE_MIN, SUITE_SCALE_MAX);
		return OUT_INVALID;
	}
	if (scheduler && *scheduler &&
	    ident_checks(IDENT_SCHEDULER, scheduler, why, sizeof(why))) {
		snprintf(err, errlen, "field 'scheduler': %s", why);
		return OUT_INVALID;
	}
	if (cmdline_check(d, cmdline, why, sizeof(why))) {
		snprintf(err, errlen, "field 'cmdline': %s", why);
		return OUT_FORBIDDEN;
	}
	return OUT_OK;
}

enum outcome job_suite_check(const struct klabd *d, const char *suite,
			     char *err, size_t errlen)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
		"QRSTUVWXYZ0123456789_-";
	char path[4096];

	if (!*suite || strspn(suite, ok) != strlen(suite) ||
	    strlen(suite) > 64) {
		snprintf(err, errlen, "invalid suite name '%.80s'", suite);
		return OUT_INVALID;
	}
	snprintf(path, sizeof(path), "%s/workloads/suites/%s.suite",
		 d->top_dir ? d->top_dir : ".", suite);
	if (access(path, R_OK)) {
		snprintf(err, errlen, "unknown suite '%s': not in "
			 "workloads/suites/", suite);
		return OUT_INVALID;
	}
	return OUT_OK;
}

int job_suites_register(const struct klabd *d, struct db *db)
{
	char dir[4096], path[4400], err[1024];
	struct dirent *e;
	struct suite s;
	DIR *dh;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/workloads/suites",
		 d->top_dir ? d->top_dir : ".");
	dh = opendir(dir);
	if (!dh)
		return 0;
	for (e = readdir(dh); e; e = readdir(dh)) {
		size_t len = strlen(e->d_name);

		if (len < 7 || strcmp(e->d_name + len - 6, ".suite"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (suite_load(&s, path, err, sizeof(err)))
			goto next;
		if (strlen(s.name) != len - 6 ||
		    strncmp(s.name, e->d_name, len - 6)) {
			snprintf(err, sizeof(err), "'%.600s': name '%.80s' "
				 "is not the file's", path, s.name);
			goto next;
		}
		if (db_suite_put(db, s.name, s.description ? s.description :
				 "", err, sizeof(err)) == 0) {
			n++;
			suite_release(&s);
			continue;
		}
next:
		fprintf(stderr, "klabd: suite not registered: %s\n", err);
		suite_release(&s);
	}
	closedir(dh);
	return n;
}
