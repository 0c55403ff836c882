// SPDX-License-Identifier: MIT
/*
 * Bisections of a git range (bisect.h, kind git): `git bisect` chooses
 * the commits.  The repository is the git = PATH of a configured [base
 * NAME] (a request names the base, never a path); the commits a request
 * names are resolved there with git rev-parse --verify, never given to a
 * shell and never taken when they look like an option.  The driver keeps
 * the bisection's own state in a private bare clone sharing the base's
 * objects (git clone --bare --shared, DATA/bisect/ID): bare, so git
 * bisect works with --no-checkout and checks nothing out.  Each time a
 * step is wanted the whole state is replayed from the database (git
 * bisect start --no-checkout BAD GOOD, then git bisect good|bad|skip of
 * every marked step in order), so a restarted klabd, or one stopped
 * between a mark and git, asks git the same question; git's answer is the
 * commit in BISECT_HEAD, or "HASH is the first bad commit", or "only
 * skipped commits left" (judge/bisect_pick_git.h reads it).  Every git runs
 * with an argument vector and a timeout (lib/git.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flow/bisect.h"
#include "judge/bisect_pick_git.h"
#include "lib/alloc.h"
#include "lib/config.h"
#include "lib/git.h"
#include "lib/proc.h"

#define BASE_PREFIX "base "

const char *bis_git_repo(struct klabd *d, const char *base)
{
	char sec[96];

	if (strlen(base) > 64)
		return NULL;
	snprintf(sec, sizeof(sec), BASE_PREFIX "%s", base);
	return config_get(&d->cfg, sec, "git");
}

/* What a request may name: no option, no path, no range; git rev-parse
 * decides the rest. */
static int commit_name_ok(const char *s)
{
	size_t i;

	if (!*s || *s == '-' || strlen(s) > 128 || strstr(s, ".."))
		return 0;
	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._/~^-", s[i]))
			return 0;
	return 1;
}

/* The full hash of a commit hash (hex) in repo, label, subject and
 * author into c (heap). */
static int git_describe(const char *repo, const char *hash,
			struct db_bis_cand *c, char *err, size_t errlen)
{
	const char *args[] = { "log", "-1", "--no-show-signature",
			       "--format=%s%n%an <%ae>", hash, "--", NULL };
	struct strbuf out = STRBUF_INIT;
	char label[400];
	size_t k;

	memset(c, 0, sizeof(*c));
	sb_init(&out);
	if (git_run(repo, args, &out, err, errlen)) {
		sb_release(&out);
		return -1;
	}
	git_chomp(&out);
	k = strcspn(out.buf, "\n");
	snprintf(label, sizeof(label), "%.12s %.*s", hash, (int)k, out.buf);
	c->label = xstrdup(label);
	c->subject = strndup(out.buf, k);
	if (!c->subject)
		abort();
	c->author = xstrdup(out.buf[k] ? out.buf + k + 1 : "");
	c->file = xstrdup(hash);
	c->kernel = xstrdup("");
	sb_release(&out);
	return 0;
}

int bis_git_commit(const char *repo, const char *field, const char *name,
		   const char *base, struct db_bis_cand *c, char *err,
		   size_t errlen)
{
	struct strbuf out = STRBUF_INIT, rev = STRBUF_INIT;
	const char *args[] = { "rev-parse", "--verify", "--quiet",
			       "--end-of-options", NULL, NULL };
	char gerr[400];
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (!commit_name_ok(name)) {
		snprintf(err, errlen, "field '%s': '%.80s' is not a commit name"
			 " (a hash, a branch, a tag, HEAD~N)", field, name);
		return -1;
	}
	sb_init(&out);
	sb_init(&rev);
	sb_addf(&rev, "%s^{commit}", name);
	args[4] = rev.buf;
	if (git_run(repo, args, &out, gerr, sizeof(gerr)) == 0) {
		git_chomp(&out);
		if (bisect_git_is_hex(out.buf, out.len) &&
		    !git_describe(repo, out.buf, c, gerr, sizeof(gerr)))
			rc = 0;
	}
	if (rc)
		snprintf(err, errlen, "field '%s': no commit '%.80s' in base "
			 "'%.64s'", field, name, base);
	sb_release(&out);
	sb_release(&rev);
	return rc;
}

int bis_git_range(const char *repo, const char *good, const char *bad,
		  long *count, char *err, size_t errlen)
{
	const char *anc[] = { "merge-base", "--is-ancestor", good, bad, NULL };
	struct strbuf out = STRBUF_INIT, r = STRBUF_INIT;
	const char *cnt[] = { "rev-list", "--count", NULL, NULL };
	int rc;

	rc = git_run(repo, anc, NULL, err, errlen);
	if (rc == 1) {
		snprintf(err, errlen, "field 'good': commit %.12s is not an "
			 "ancestor of the bad commit %.12s", good, bad);
		return -1;
	}
	if (rc)
		return -1;
	sb_init(&out);
	sb_init(&r);
	sb_addf(&r, "%s..%s", good, bad);
	cnt[2] = r.buf;
	rc = git_run(repo, cnt, &out, err, errlen);
	*count = rc ? 0 : strtol(out.buf, NULL, 10);
	sb_release(&out);
	sb_release(&r);
	return rc ? -1 : 0;
}

/* DATA/bisect/ID into sb. */
static void state_dir(struct klabd *d, int64_t id, struct strbuf *sb)
{
	sb_addf(sb, "%s/bisect/%lld", d->data_dir, (long long)id);
}

static int rm_rf(const char *path, char *err, size_t errlen)
{
	const char *argv[] = { "rm", "-rf", "--", path, NULL };
	struct proc_opts o;

	memset(&o, 0, sizeof(o));
	o.timeout_ms = GIT_TIMEOUT_MS;
	return proc_run((char *const *)argv, &o, NULL, err, errlen) ? -1 : 0;
}

/* The private clone of bisection v, made when missing. */
static int state_clone(struct klabd *d, const struct bis_view *v,
		       const char *dir, char *err, size_t errlen)
{
	struct strbuf tmp = STRBUF_INIT, top = STRBUF_INIT;
	const char *repo = bis_git_repo(d, v->b.base);
	const char *args[] = { "clone", "--quiet", "--bare", "--shared",
			       "--no-tags", "--", repo, NULL, NULL };
	struct stat st;
	int rc = -1;

	if (!stat(dir, &st))
		return 0;
	if (!repo) {
		snprintf(err, errlen, "base '%.64s' is no longer a git base "
			 "of the configuration", v->b.base);
		return -1;
	}
	sb_init(&tmp);
	sb_init(&top);
	sb_addf(&top, "%s/bisect", d->data_dir);
	sb_addf(&tmp, "%s.tmp", dir);
	if (mkdir(top.buf, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %.300s: %s", top.buf,
			 strerror(errno));
		goto out;
	}
	if (rm_rf(tmp.buf, err, errlen))
		goto out;
	args[7] = tmp.buf;
	if (git_run(top.buf, args, NULL, err, errlen))
		goto out;
	if (rename(tmp.buf, dir)) {
		snprintf(err, errlen, "cannot rename %.300s: %s", tmp.buf,
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	sb_release(&tmp);
	sb_release(&top);
	return rc;
}

/* The candidate of commit hash from index from on, or -1. */
static int cand_find(const struct bis_view *v, size_t from, const char *hash)
{
	size_t i;

	for (i = from; i < v->ncands; i++)
		if (!strcmp(v->cands[i].file, hash))
			return (int)i;
	return -1;
}

/* Candidate of commit hash (described from dir): the one there is
 * (from index from on), else a new one with the kernel and build of
 * candidate like (-1: none).  Its index, or -1. */
static int cand_get(struct db *db, struct bis_view *v, const char *dir,
		    const char *hash, size_t from, int like, char *err,
		    size_t errlen)
{
	struct db_bis_cand c;
	int i = cand_find(v, from, hash);

	if (i >= 0)
		return i;
	if (git_describe(dir, hash, &c, err, errlen))
		return -1;
	c.idx = (int)v->ncands;
	if (like >= 0) {
		alloc_str_set(&c.kernel, v->cands[like].kernel);
		c.build = v->cands[like].build;
	}
	if (db_bisection_cand_add(db, v->b.id, &c)) {
		snprintf(err, errlen, "cannot record candidate %.12s", hash);
		i = -1;
	} else {
		i = c.idx;
	}
	db_bis_cand_release(&c);
	return i;
}

/* Replay the marks into git bisect in dir: the last output into out.
 * A mark after which only skipped commits are left makes git exit 2;
 * that is an answer ("cannot tell"), not a failure. */
static int replay(const struct bis_view *v, const char *dir,
		  struct strbuf *out, char *err, size_t errlen)
{
	struct bis_git_out go;
	const char *start[] = { "bisect", "start", "--no-checkout",
				v->cands[1].file, v->cands[0].file, "--",
				NULL };
	const char *mark[] = { "bisect", NULL, NULL, NULL };
	size_t i;

	sb_reset(out);
	if (git_run(dir, start, out, err, errlen))
		return -1;
	for (i = 0; i < v->nsteps; i++) {
		const struct db_bis_step *s = &v->steps[i];

		if (strcmp(s->purpose, "step") || !*s->mark || s->idx < 2 ||
		    (size_t)s->idx >= v->ncands)
			continue;
		mark[1] = s->mark;
		mark[2] = v->cands[s->idx].file;
		sb_reset(out);
		if (git_run(dir, mark, out, err, errlen)) {
			bisect_git_parse(out->len ? out->buf : "", &go);
			if (go.state != BIS_GIT_CANNOT)
				return -1;
			*err = '\0';
		}
	}
	return 0;
}

int bis_git_next(struct klabd *d, struct db *db, struct bis_view *v,
		 struct bis_git_step *nx, char *err, size_t errlen)
{
	struct strbuf dir = STRBUF_INIT, out = STRBUF_INIT;
	const char *head[] = { "rev-parse", "--verify", "BISECT_HEAD", NULL };
	const char *par[] = { "rev-parse", "--verify", NULL, NULL };
	struct bis_git_out go;
	char rev[BIS_GIT_HEX_MAX + 8];
	int rc = -1, p, x;

	memset(nx, 0, sizeof(*nx));
	sb_init(&dir);
	sb_init(&out);
	state_dir(d, v->b.id, &dir);
	if (v->ncands < 2 || state_clone(d, v, dir.buf, err, errlen) ||
	    replay(v, dir.buf, &out, err, errlen))
		goto out;
	bisect_git_parse(out.buf, &go);
	nx->state = go.state;
	nx->steps_left = go.steps_left;
	if (go.state == BIS_GIT_TEST) {
		if (git_run(dir.buf, head, &out, err, errlen))
			goto out;
		git_chomp(&out);
		if (!bisect_git_is_hex(out.buf, out.len)) {
			snprintf(err, errlen, "BISECT_HEAD is not a commit");
			goto out;
		}
		nx->idx = cand_get(db, v, dir.buf, out.buf, 2, -1, err,
				   errlen);
		rc = nx->idx < 0 ? -1 : 0;
	} else if (go.state == BIS_GIT_FOUND) {
		/* confirmed against its first parent: the two as the last
		 * candidates, their kernels reused */
		snprintf(rev, sizeof(rev), "%s^1", go.commit);
		par[2] = rev;
		if (git_run(dir.buf, par, &out, err, errlen))
			goto out;
		git_chomp(&out);
		x = cand_find(v, 0, go.commit);
		p = cand_find(v, 0, out.buf);
		if (v->ncands >= 4 && v->ncands - 2 > 1 &&
		    !strcmp(v->cands[v->ncands - 2].file, out.buf) &&
		    !strcmp(v->cands[v->ncands - 1].file, go.commit)) {
			nx->idx = (int)v->ncands - 1;	/* added already */
			rc = 0;
			goto out;
		}
		if (cand_get(db, v, dir.buf, out.buf, v->ncands, p, err,
			     errlen) < 0)
			goto out;
		db_bis_cands_free(v->cands, v->ncands);
		v->cands = NULL;
		if (db_bisection_candidates(db, v->b.id, &v->cands,
					    &v->ncands)) {
			snprintf(err, errlen, "cannot read the candidates");
			goto out;
		}
		nx->idx = cand_get(db, v, dir.buf, go.commit, v->ncands, x,
				   err, errlen);
		rc = nx->idx < 0 ? -1 : 0;
	} else if (go.state == BIS_GIT_CANNOT) {
		rc = 0;
	} else {
		snprintf(err, errlen, "git bisect said: %.300s", out.buf);
	}
out:
	sb_release(&dir);
	sb_release(&out);
	return rc;
}

void bis_git_cleanup(struct klabd *d, int64_t id)
{
	struct strbuf dir = STRBUF_INIT;
	char err[300];

	sb_init(&dir);
	state_dir(d, id, &dir);
	if (rm_rf(dir.buf, err, sizeof(err)))
		fprintf(stderr, "klabd: bisection %lld: %s\n", (long long)id,
			err);
	sb_release(&dir);
}
