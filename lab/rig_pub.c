// SPDX-License-Identifier: MIT
/*
 * Publishing the rig manager's decisions: the database writes a decision
 * implies (a rig's state, a job running, done or failed) are collected
 * under the manager's lock in a struct rig_fx with a ticket of the rig,
 * and written after the lock is released, in ticket order per rig, so
 * the database sees the decisions in the order they were taken while no
 * database wait ever happens under the lock.  See rigmgr.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "klabd/klabd.h"
#include "lab/rig.h"

#define CONSOLE_TAIL (64 * 1024)

char *rig_read_tail(const char *path, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	size_t off;

	sb_init(&sb);
	if (!path || !*path || sb_read_file(&sb, path) < 0)
		return sb_detach(&sb, NULL);
	if (sb.len > max) {
		off = sb.len - max;
		memmove(sb.buf, sb.buf + off, max);
		sb.len = max;
		sb.buf[max] = '\0';
	}
	return sb_detach(&sb, NULL);
}

/* Under the lock: take a ticket if fx has anything to write. */
void rig_fx_take(struct rig *g, struct rig_fx *fx)
{
	fx->g = g;
	if (g->state != g->db_state) {
		fx->rig_state_set = 1;
		fx->rig_state = g->state;
		g->db_state = g->state;
	}
	if (!fx->rig_state_set && !fx->job_state && !fx->klass)
		return;
	fx->ticket = g->pub_next++;
	fx->ticketed = 1;
}

static void fx_write(struct rig_fx *fx)
{
	struct rig *g = fx->g;
	char err[256] = "", *console;
	struct db *db = klabd_db_get(g->d, err, sizeof(err));
	int rc = 0;

	if (!db) {
		fprintf(stderr, "klabd: rig %s: cannot record: %s\n", g->name,
			err);
		return;
	}
	if (fx->rig_state_set)
		rc |= db_rig_set_state(db, g->name,
				       rig_state_name(fx->rig_state));
	if (fx->rig_state_set && fx->rig_state == RIG_OFFLINE) {
		struct klabd_event e = { .kind = EV_RIG_OFFLINE, .db = db,
					 .name = g->name };

		events_publish(g->d, &e);
	}
	if (fx->klass) {
		console = fx->console[0] ?
			rig_read_tail(fx->console, CONSOLE_TAIL) : strdup("");
		rc |= db_job_fail(db, fx->job, fx->klass, fx->why,
				  console ? console : "",
				  fx->output ? fx->output : "", fx->attempts);
		free(console);
	} else if (fx->job_state) {
		rc |= db_job_set_state(db, fx->job, fx->job_state);
	}
	if (rc)
		fprintf(stderr, "klabd: rig %s: cannot record job %lld or "
			"the rig's state\n", g->name, (long long)fx->job);
	klabd_db_put(g->d, db);
}

/* After the lock: write fx when its ticket's turn comes. */
void rig_fx_publish(struct rig_fx *fx)
{
	struct rig *g = fx->g;

	if (!fx->ticketed)
		return;
	pthread_mutex_lock(&g->pub_lock);
	while (g->pub_serving != fx->ticket)
		pthread_cond_wait(&g->pub_cond, &g->pub_lock);
	pthread_mutex_unlock(&g->pub_lock);
	fx_write(fx);
	pthread_mutex_lock(&g->pub_lock);
	g->pub_serving++;
	pthread_cond_broadcast(&g->pub_cond);
	pthread_mutex_unlock(&g->pub_lock);
	fx->ticketed = 0;
}
