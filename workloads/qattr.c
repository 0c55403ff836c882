// SPDX-License-Identifier: MIT
/*
 * qattr: a suite's block queue attributes and vm settings, set for a run
 * and put back (see qattr.h).
 */
#include "workloads/qattr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first line of path into buf, without its newline.  0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int write_value(const char *path, const char *value)
{
	size_t n = strlen(value);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), e;

	if (fd < 0)
		return -1;
	if (write(fd, value, n) != (ssize_t)n) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static const char *base(const char *dir)
{
	const char *s = strrchr(dir, '/');

	return s ? s + 1 : dir;
}

int qattr_apply(struct qattr_state *st, const struct suite *s,
		const struct devstat_set *dev, char *err, size_t errlen)
{
	struct qattr_saved *v;
	unsigned d, i;

	st->n = 0;
	st->journal = -1;
	if (!s->nqueue)
		return 0;
	if (!dev->n) {
		snprintf(err, errlen, "suite '%s' sets block queue attributes "
			 "(%s=%s...), but no block device is behind its disks",
			 s->name, s->queue[0].name, s->queue[0].value);
		return -1;
	}
	for (d = 0; d < dev->n; d++) {
		for (i = 0; i < s->nqueue; i++) {
			v = &st->v[st->n];
			snprintf(v->path, sizeof(v->path), "%s/queue/%s",
				 dev->dir[d], s->queue[i].name);
			if (read_line(v->path, v->old, sizeof(v->old)) ||
			    write_value(v->path, s->queue[i].value)) {
				snprintf(err, errlen, "cannot set block queue "
					 "attribute %s=%s of suite '%s' on %s "
					 "(%s): %s", s->queue[i].name,
					 s->queue[i].value, s->name,
					 base(dev->dir[d]), v->path,
					 strerror(errno));
				qattr_restore(st);
				return -1;
			}
			fprintf(stderr, "klab-run: %s: queue/%s %s -> %s\n",
				base(dev->dir[d]), s->queue[i].name, v->old,
				s->queue[i].value);
			st->n++;
		}
	}
	return 0;
}

static int digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

/*
 * Put back what the journal lists (a run killed while it held the vm
 * settings), last line first, then empty it.  Lines outside dir or whose
 * value is not a number are ignored.
 */
static void journal_replay(int fd, const char *dir)
{
	char buf[4096], *line[2 * SUITE_MAX_VM], *sp, *nl, *p = buf;
	size_t dl = strlen(dir);
	unsigned n = 0;
	ssize_t r = pread(fd, buf, sizeof(buf) - 1, 0);

	if (r <= 0)
		return;
	buf[r] = 0;
	while (*p && n < 2 * SUITE_MAX_VM) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		line[n++] = p;
		p = nl + 1;
	}
	while (n--) {
		sp = strchr(line[n], ' ');
		if (!sp)
			continue;
		*sp++ = 0;
		if (strncmp(line[n], dir, dl) || line[n][dl] != '/' ||
		    strstr(line[n], "..") || !digits(sp))
			continue;
		if (write_value(line[n], sp))
			fprintf(stderr, "klab-run: cannot put back %s (%s) "
				"left by a run that did not finish: %s\n",
				line[n], sp, strerror(errno));
		else
			fprintf(stderr, "klab-run: put back %s = %s, left by a "
				"run that did not finish\n", line[n], sp);
	}
	if (ftruncate(fd, 0))
		fprintf(stderr, "klab-run: cannot empty the vm journal: %s\n",
			strerror(errno));
}

/* Rewrite the journal with st's vm entries (from index from), on disk. */
static int journal_write(const struct qattr_state *st, unsigned from)
{
	char buf[4096];
	size_t len = 0;
	unsigned i;

	for (i = from; i < st->n && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %s\n",
					st->v[i].path, st->v[i].old);
	if (len >= sizeof(buf) || ftruncate(st->journal, 0) ||
	    pwrite(st->journal, buf, len, 0) != (ssize_t)len)
		return -1;
	return fsync(st->journal);
}

/* Lock the journal (waiting for another run) and replay what it holds. */
static int journal_open(struct qattr_state *st, const char *dir,
			const char *journal, char *err, size_t errlen)
{
	st->journal = open(journal, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (st->journal < 0) {
		snprintf(err, errlen, "cannot open the vm journal %s: %s",
			 journal, strerror(errno));
		return -1;
	}
	if (flock(st->journal, LOCK_EX | LOCK_NB)) {
		int busy = errno == EWOULDBLOCK;

		if (busy)
			fprintf(stderr, "klab-run: waiting for another run's "
				"vm settings (%s)\n", journal);
		if (!busy || flock(st->journal, LOCK_EX)) {
			snprintf(err, errlen, "waiting for the vm journal %s: "
				 "%s", journal, strerror(errno));
			close(st->journal);
			st->journal = -1;
			return -1;
		}
	}
	journal_replay(st->journal, dir);
	return 0;
}

/*
 * Save NAME's old value in v: its own, or for a NAME_bytes that reads 0
 * (the ratio is in force) NAME_ratio's.
 */
static int save_old(struct qattr_saved *v, const char *dir, const char *name)
{
	size_t k = strlen(name);
	char path[sizeof(v->path)], old[sizeof(v->old)];

	snprintf(v->path, sizeof(v->path), "%s/%s", dir, name);
	if (read_line(v->path, v->old, sizeof(v->old)))
		return -1;
	if (strcmp(v->old, "0") || k <= 6 || strcmp(name + k - 6, "_bytes"))
		return 0;
	snprintf(path, sizeof(path), "%s/%.*s_ratio", dir, (int)(k - 6), name);
	if (read_line(path, old, sizeof(old)) == 0 && digits(old)) {
		memcpy(v->path, path, sizeof(path));
		memcpy(v->old, old, sizeof(old));
	}
	return 0;
}

/*
 * For a suite without a vm key: when a killed run left its journal, and
 * no run holds it now, put its settings back, so that this run does not
 * measure under a configuration it does not record.
 */
static void journal_leftover(const char *dir, const char *journal)
{
	int fd = open(journal, O_RDWR | O_CLOEXEC);
	struct stat sb;

	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			journal_replay(fd, dir);
		else
			fprintf(stderr, "klab-run: warning: another run holds "
				"the vm settings (%s)\n", journal);
	}
	close(fd);
}

int qattr_apply_vm(struct qattr_state *st, const struct suite *s,
		   const char *dir, const char *journal, char *err,
		   size_t errlen)
{
	unsigned i, from = st->n;
	struct qattr_saved *v;

	if (!s->nvm) {
		journal_leftover(dir, journal);
		return 0;
	}
	if (journal_open(st, dir, journal, err, errlen)) {
		qattr_restore(st);
		return -1;
	}
	for (i = 0; i < s->nvm; i++) {
		char path[sizeof(v->path)];

		v = &st->v[st->n];
		if (save_old(v, dir, s->vm[i].name))
			goto fail;
		st->n++;
		if (journal_write(st, from)) {
			snprintf(err, errlen, "cannot write the vm journal %s: "
				 "%s", journal, strerror(errno));
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, s->vm[i].name);
		if (write_value(path, s->vm[i].value))
			goto fail;
		fprintf(stderr, "klab-run: vm/%s -> %s (was %s %s)\n",
			s->vm[i].name, s->vm[i].value, base(v->path), v->old);
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot set vm setting %s=%s of suite '%s' "
		 "(%s/%s): %s", s->vm[i].name, s->vm[i].value, s->name, dir,
		 s->vm[i].name, strerror(errno));
out:
	qattr_restore(st);
	return -1;
}

void qattr_restore(struct qattr_state *st)
{
	while (st->n) {
		struct qattr_saved *v = &st->v[--st->n];

		if (write_value(v->path, v->old))
			fprintf(stderr, "klab-run: cannot put back %s (%s): "
				"%s\n", v->path, v->old, strerror(errno));
	}
	if (st->journal >= 0) {
		if (ftruncate(st->journal, 0))
			fprintf(stderr, "klab-run: cannot empty the vm "
				"journal: %s\n", strerror(errno));
		close(st->journal);
		st->journal = -1;
	}
}
