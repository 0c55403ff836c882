// SPDX-License-Identifier: MIT
/*
 * iopseng: psync and io_uring worker loops of the iops program (see
 * iopseng.h).  The io_uring loop keeps qd requests in flight, registers the
 * disks' file descriptors and the buffers, and reads the clock once per
 * batch of completions and once per submission, not per request.
 */
#include "workloads/iopseng.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "lib/rand.h"
#include "workloads/iofile.h"
#include "workloads/runctl.h"

static void pick(struct iops_worker *w, unsigned *d, uint64_t *off)
{
	const struct iops_shared *sh = w->sh;
	uint64_t r = rand_xorshift64(&w->rng);

	*d = sh->ndisk == 1 ? 0 : (unsigned)(r % sh->ndisk);
	*off = (rand_xorshift64(&w->rng) % sh->disk[*d].nblk) * sh->bs;
}

static void record(struct iops_worker *w, unsigned d, uint64_t lat)
{
	if (!w->sh->measuring)
		return;
	hist_add(&w->h, lat);
	w->ops++;
	w->dev_ops[d]++;
}

static void run_psync(struct iops_worker *w)
{
	struct iops_shared *sh = w->sh;
	void *buf = iofile_buffer((size_t)sh->bs);
	uint64_t off, t;
	unsigned d;
	int rc;

	while (!sh->stop && !wl_stopping()) {
		pick(w, &d, &off);
		t = wl_now_ns();
		if (sh->write)
			rc = iofile_write(sh->disk[d].fd, sh->disk[d].file, buf,
					  (size_t)sh->bs, off);
		else
			rc = iofile_read(sh->disk[d].fd, sh->disk[d].file, buf,
					 (size_t)sh->bs, off);
		if (rc)
			break;
		record(w, d, wl_now_ns() - t);
	}
	free(buf);
}

#ifdef HAVE_LIBURING
int iopseng_have_uring(void)
{
	return 1;
}

int iopseng_uring_probe(unsigned qd)
{
	struct io_uring ring;
	int rc = io_uring_queue_init(qd, &ring, 0);

	if (rc == 0)
		io_uring_queue_exit(&ring);
	return rc;
}

struct uring_ctx {
	struct io_uring ring;
	struct iovec *iov;	/* one registered buffer per slot */
	uint64_t *t;		/* submit time per slot */
	unsigned *d;		/* disk per slot */
	unsigned inflight;
};

static void uring_queue(struct iops_worker *w, struct uring_ctx *u,
			unsigned i, uint64_t now)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	uint64_t off;

	pick(w, &u->d[i], &off);
	u->t[i] = now;
	if (w->sh->write)
		io_uring_prep_write_fixed(sqe, (int)u->d[i], u->iov[i].iov_base,
					  (unsigned)w->sh->bs, off, (int)i);
	else
		io_uring_prep_read_fixed(sqe, (int)u->d[i], u->iov[i].iov_base,
					 (unsigned)w->sh->bs, off, (int)i);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, i);
	u->inflight++;
}

static int uring_setup(struct iops_worker *w, struct uring_ctx *u)
{
	const struct iops_shared *sh = w->sh;
	int *fds, rc;
	unsigned i;

	rc = io_uring_queue_init(sh->qd, &u->ring, 0);
	if (rc) {
		wl_fail("cannot set up io_uring: %s", strerror(-rc));
		return -2;	/* nothing to tear down */
	}
	u->iov = calloc(sh->qd, sizeof(*u->iov));
	u->t = calloc(sh->qd, sizeof(*u->t));
	u->d = calloc(sh->qd, sizeof(*u->d));
	fds = calloc(sh->ndisk, sizeof(*fds));
	if (!u->iov || !u->t || !u->d || !fds)
		abort();
	for (i = 0; i < sh->qd; i++) {
		u->iov[i].iov_base = iofile_buffer((size_t)sh->bs);
		u->iov[i].iov_len = (size_t)sh->bs;
	}
	for (i = 0; i < sh->ndisk; i++)
		fds[i] = sh->disk[i].fd;
	rc = io_uring_register_files(&u->ring, fds, sh->ndisk);
	if (!rc)
		rc = io_uring_register_buffers(&u->ring, u->iov, sh->qd);
	free(fds);
	if (rc)
		wl_fail("cannot register io_uring files or buffers: %s",
			strerror(-rc));
	return rc ? -1 : 0;
}

static void uring_teardown(struct uring_ctx *u, unsigned qd)
{
	unsigned i;

	io_uring_queue_exit(&u->ring);
	for (i = 0; i < qd; i++)
		free(u->iov[i].iov_base);
	free(u->iov);
	free(u->t);
	free(u->d);
}

/* Reap completions; returns -1 after an I/O error (recorded). */
static int uring_reap(struct iops_worker *w, struct uring_ctx *u, int requeue)
{
	struct io_uring_cqe *cqe;
	uint64_t now = wl_now_ns();
	unsigned head, n = 0, i;
	int rc = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		i = (unsigned)io_uring_cqe_get_data64(cqe);
		n++;
		u->inflight--;
		if (cqe->res != (int)w->sh->bs) {
			int e = cqe->res < 0 ? -cqe->res : EIO;
			char msg[512];

			iofile_errmsg(e, w->sh->disk[u->d[i]].file,
				      w->sh->write ? "write" : "read", msg,
				      sizeof(msg));
			wl_fail("%s", msg);
			rc = -1;
			continue;
		}
		record(w, u->d[i], now - u->t[i]);
		if (requeue && !rc)
			uring_queue(w, u, i, now);
	}
	io_uring_cq_advance(&u->ring, n);
	return rc;
}

static void run_uring(struct iops_worker *w)
{
	struct iops_shared *sh = w->sh;
	struct uring_ctx u;
	uint64_t now = wl_now_ns();
	unsigned i;
	int rc;

	memset(&u, 0, sizeof(u));
	rc = uring_setup(w, &u);
	if (rc == -2)
		return;
	if (rc)
		goto out_teardown;
	for (i = 0; i < sh->qd; i++)
		uring_queue(w, &u, i, now);
	while (u.inflight) {
		rc = io_uring_submit_and_wait(&u.ring, 1);
		if (rc < 0 && rc != -EINTR) {
			wl_fail("io_uring submit failed: %s", strerror(-rc));
			break;
		}
		uring_reap(w, &u, !sh->stop && !wl_stopping());
	}
out_teardown:
	uring_teardown(&u, sh->qd);
}
#else
int iopseng_have_uring(void)
{
	return 0;
}

int iopseng_uring_probe(unsigned qd)
{
	return -ENOSYS;
}

static void run_uring(struct iops_worker *w)
{
	wl_fail("io_uring: klab was built without liburing");
}
#endif

void *iopseng_run(void *arg)
{
	struct iops_worker *w = arg;
	cpu_set_t set;

	if (w->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (w->uring)
		run_uring(w);
	else
		run_psync(w);
	return NULL;
}
