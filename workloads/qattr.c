// SPDX-License-Identifier: MIT
/*
 * qattr: a suite's block queue attributes, set for a run and put back
 * (see qattr.h).
 */
#include "workloads/qattr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

void qattr_restore(struct qattr_state *st)
{
	while (st->n) {
		struct qattr_saved *v = &st->v[--st->n];

		if (write_value(v->path, v->old))
			fprintf(stderr, "klab-run: cannot put back %s (%s): "
				"%s\n", v->path, v->old, strerror(errno));
	}
}
