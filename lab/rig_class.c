// SPDX-License-Identifier: MIT
/*
 * rig_class: rig pools (issue 31).  Several identical rigs form a class
 * ([rig NAME] class = CLASS; a rig is its own class by default).  A
 * submission, a comparison or a bisection names a class, and its cells
 * go to whichever rig of the class is free (db/db_jobs.c, db_job_assign);
 * the judge takes the rig as a blocking factor (judge/strata.c).  This
 * file is the one place a name is resolved to rigs in the configuration,
 * and the check at start that the rigs of a class share one
 * configuration, so that their runs share one rig-configuration hash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klabd/klabd.h"
#include "lab/rig.h"
#include "lab/rig_conf.h"
#include "lib/rigconf.h"
#include "lib/strbuf.h"

size_t rig_class_resolve(struct klabd *d, const char *name, struct rig **out,
			 size_t max)
{
	size_t i, n = 0;
	struct rig *g;

	if (!name)
		return 0;
	for (i = 0; i < rigmgr_count(d); i++) {
		g = rigmgr_rig(d, i);
		if (strcmp(g->klass, name))
			continue;
		if (n < max)
			out[n] = g;
		n++;
	}
	if (n)
		return n;
	g = rigmgr_find(d, name);
	if (!g)
		return 0;
	if (max)
		out[0] = g;
	return 1;
}

/* A class named like a rig would make the name mean two things (the
 * pool, or that rig alone): refused, but for a rig's own class. */
static int class_name_check(struct klabd *d, const struct rig *g, char *err,
			    size_t errlen)
{
	if (!strcmp(g->klass, g->name) || !rigmgr_find(d, g->klass))
		return 0;
	snprintf(err, errlen, "%s: [rig %s] class: '%s' is the name of a "
		 "rig: name a class apart from its rigs", d->cfg.path, g->name,
		 g->klass);
	return -1;
}

/* g against the first rig of its class, first (texts made). */
static int class_same(struct klabd *d, const struct rig *first,
		      const char *ft, const struct rig *g, const char *gt,
		      char *err, size_t errlen)
{
	const char *texts[2] = { ft, gt };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	if (!strcmp(ft, gt))
		return 0;
	sb_init(&a);
	sb_init(&b);
	rigconf_diff(texts, 2, 1, &a);
	rigconf_diff(texts, 2, 0, &b);
	snprintf(err, errlen, "%s: [rig %s] class '%s': its configuration "
		 "differs from rig '%s' (%s against %s): the rigs of a class "
		 "must be identical", d->cfg.path, g->name, g->klass,
		 first->name, a.buf ? a.buf : "", b.buf ? b.buf : "");
	sb_release(&a);
	sb_release(&b);
	return -1;
}

int rig_class_check(struct klabd *d, char *err, size_t errlen)
{
	size_t n = rigmgr_count(d), i, j;
	char **texts = calloc(n + 1, sizeof(*texts));
	int rc = 0;

	if (!texts)
		abort();
	for (i = 0; i < n && !rc; i++) {
		const struct rig *g = rigmgr_rig(d, i);

		texts[i] = rig_conf_class_text(d, g);
		rc = class_name_check(d, g, err, errlen);
		for (j = 0; j < i && !rc; j++) {
			const struct rig *f = rigmgr_rig(d, j);

			if (strcmp(f->klass, g->klass))
				continue;
			rc = class_same(d, f, texts[j], g, texts[i], err,
					errlen);
			break;
		}
	}
	for (i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	return rc;
}
