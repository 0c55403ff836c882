// SPDX-License-Identifier: MIT
/*
 * driver: run a suite step, capture, time out, parse (see driver.h).
 */
#include "workloads/driver.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/import.h"
#include "lib/strbuf.h"
#include "workloads/iofile.h"
#include "workloads/runctl.h"
#include "workloads/wlcli.h"

enum kind { K_KLAB, K_FIO, K_DBENCH };

struct step {
	char **argv;
	enum kind kind;
	char prog[64];
	char out[4096], errf[4096], json[4096], cwd[4096];
};

static char **argv_append(char **argv, const char *a)
{
	size_t n = wl_argv_count(argv);

	argv = realloc(argv, (n + 2) * sizeof(*argv));
	if (!argv)
		abort();
	argv[n] = strdup(a);
	if (!argv[n])
		abort();
	argv[n + 1] = NULL;
	return argv;
}

/* Our program: use the copy next to klab-run when there is one. */
static void own_binary(struct step *s, const struct driver_env *env)
{
	char path[4096];

	if (!env->bindir || strchr(s->argv[0], '/'))
		return;
	snprintf(path, sizeof(path), "%s/%s", env->bindir, s->argv[0]);
	if (access(path, X_OK) == 0) {
		free(s->argv[0]);
		s->argv[0] = strdup(path);
		if (!s->argv[0])
			abort();
	}
}

static int step_prepare(struct step *s, const char *cmd,
			const struct driver_env *env, const char *tag,
			char *err, size_t errlen)
{
	char copy[4096];

	memset(s, 0, sizeof(*s));
	s->argv = wl_argv_split(cmd, err, errlen);
	if (!s->argv)
		return -1;
	snprintf(copy, sizeof(copy), "%s", s->argv[0]);
	snprintf(s->prog, sizeof(s->prog), "%s", basename(copy));
	snprintf(s->out, sizeof(s->out), "%s/%s.out", env->rawdir, tag);
	snprintf(s->errf, sizeof(s->errf), "%s/%s.err", env->rawdir, tag);
	snprintf(s->json, sizeof(s->json), "%s/%s.json", env->rawdir, tag);
	if (!strcmp(s->prog, "tiotest") || !strcmp(s->prog, "rio") ||
	    !strcmp(s->prog, "iops")) {
		s->kind = K_KLAB;
		own_binary(s, env);
		s->argv = argv_append(s->argv, "--id");
		s->argv = argv_append(s->argv, env->id);
		s->argv = argv_append(s->argv, "--out");
		s->argv = argv_append(s->argv, s->json);
	} else if (!strcmp(s->prog, "fio")) {
		s->kind = K_FIO;
		s->argv = argv_append(s->argv, "--output-format=json+");
		snprintf(s->json, sizeof(s->json), "%s", s->out);
	} else if (!strcmp(s->prog, "dbench")) {
		s->kind = K_DBENCH;
		if (env->workdir)
			snprintf(s->cwd, sizeof(s->cwd), "%s/klab-dbench-%ld",
				 env->workdir, (long)getpid());
		snprintf(s->json, sizeof(s->json), "%s", s->out);
	} else {
		snprintf(err, errlen, "unknown workload program '%s' (tiotest, "
			 "rio, iops, fio or dbench)", s->prog);
		return -1;
	}
	return 0;
}

/* Wait for the child; on timeout or a stop request, stop it. */
static int step_wait(struct child *c, const struct driver_env *env,
		     const char *prog, char *err, size_t errlen)
{
	uint64_t end = env->timeout > 0 ?
		c->start_ns + (uint64_t)(env->timeout * 1e9) : 0;
	char st[128];

	while (!child_poll(c)) {
		if (wl_stopping()) {
			/* time to write partial results */
			child_stop(c, 30);
			snprintf(err, errlen, "%s: interrupted", prog);
			return -1;
		}
		if (end && wl_now_ns() >= end) {
			child_stop(c, 10);
			snprintf(err, errlen, "%s: timeout after %g s", prog,
				 env->timeout);
			return -1;
		}
		wl_sleep(0.05, 0, 0);
	}
	if (child_ok(c->status))
		return 0;
	child_status_str(c->status, st, sizeof(st));
	snprintf(err, errlen, "%s failed (%s)", prog, st);
	return -1;
}

static int step_parse(const struct step *s, const char *id,
		      struct result_set *out, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	struct import_error ie;
	char msg[512];
	int n;

	sb_init(&sb);
	if (sb_read_file(&sb, s->json)) {
		snprintf(err, errlen, "%s: no output in '%s': %s", s->prog,
			 s->json, strerror(errno));
		sb_release(&sb);
		return -1;
	}
	memset(&ie, 0, sizeof(ie));
	if (s->kind == K_KLAB)
		n = import_klab(sb.buf, sb.len, id, out, &ie);
	else if (s->kind == K_FIO)
		n = import_fio(sb.buf, sb.len, id, out, &ie);
	else
		n = import_dbench(sb.buf, sb.len, id, out, &ie);
	sb_release(&sb);
	if (n < 0) {
		import_error_format(&ie, msg, sizeof(msg));
		snprintf(err, errlen, "%s: cannot read its output '%s': %s",
			 s->prog, s->json, msg);
		return -1;
	}
	return 0;
}

static void tail_oneline(char *buf, size_t len)
{
	char tmp[DRIVER_TAIL_MSG * 2];
	size_t i, o = 0;

	for (i = 0; buf[i] && o + 3 < sizeof(tmp); i++) {
		if (buf[i] != '\n') {
			tmp[o++] = buf[i] == '\t' || buf[i] == '\r' ? ' ' :
				   buf[i];
			continue;
		}
		tmp[o++] = ';';
		tmp[o++] = ' ';
	}
	tmp[o] = 0;
	/* keep the end: that is where the reason is */
	snprintf(buf, len, "%s", o >= len ? tmp + o - (len - 1) : tmp);
}

size_t driver_tail_fd(int fd, char *buf, size_t len, int oneline)
{
	struct stat st;
	off_t off;
	ssize_t n, i;
	char *nl;

	if (!len)
		return 0;
	buf[0] = 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return 0;
	off = st.st_size > (off_t)(len - 1) ? st.st_size - (off_t)(len - 1)
					    : 0;
	n = pread(fd, buf, len - 1, off);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
	nl = off > 0 ? strchr(buf, '\n') : NULL;
	if (nl && nl[1])
		memmove(buf, nl + 1, strlen(nl + 1) + 1);
	n = (ssize_t)strlen(buf);
	while (n > 0 && strchr(" \t\r\n", buf[n - 1]))
		buf[--n] = 0;
	if (oneline)
		tail_oneline(buf, len);
	return strlen(buf);
}

size_t driver_tail(const char *path, char *buf, size_t len, int oneline)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n;

	if (len)
		buf[0] = 0;
	if (fd < 0)
		return 0;
	n = driver_tail_fd(fd, buf, len, oneline);
	close(fd);
	return n;
}

/* A failed step's own words: its stderr, else its stdout (dbench prints
 * its errors there); the whole tail on our stderr, its end into tail. */
static void step_tail(const struct step *s, char *tail, size_t len)
{
	char big[DRIVER_TAIL_CAP];
	const char *f = s->errf;

	if (!driver_tail(f, big, sizeof(big), 0)) {
		f = s->out;
		driver_tail(f, big, sizeof(big), 0);
	}
	if (big[0])
		fprintf(stderr, "klab-run: %s failed, the end of '%s':\n%s\n",
			s->prog, f, big);
	driver_tail(f, tail, len, 1);
}

static int step_exec(struct step *s, const struct driver_env *env,
		     struct result_set *out, char *err, size_t errlen)
{
	struct child c;
	char why[512], tail[DRIVER_TAIL_MSG];
	int ofd, efd, rc = -1, run_rc, parse_rc;

	ofd = open(s->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	efd = open(s->errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (ofd < 0 || efd < 0) {
		snprintf(err, errlen, "cannot write raw output in '%s': %s",
			 env->rawdir, strerror(errno));
		goto out_close;
	}
	if (s->cwd[0] && mkdir(s->cwd, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%s': %s", s->cwd,
			 strerror(errno));
		goto out_close;
	}
	if (child_start(&c, s->argv, s->cwd[0] ? s->cwd : NULL, ofd, efd,
			err, errlen))
		goto out_close;
	run_rc = step_wait(&c, env, s->prog, why, sizeof(why));
	parse_rc = step_parse(s, env->id, out, err, errlen);
	if (run_rc) {
		/* our programs say what went wrong in their JSON */
		step_tail(s, tail, sizeof(tail));
		if (out->error)
			snprintf(err, errlen, "%s: %s", s->prog, out->error);
		else
			snprintf(err, errlen, "%s%s%s", why,
				 tail[0] ? ": " : "", tail);
	}
	rc = run_rc || parse_rc ? -1 : 0;
out_close:
	if (s->cwd[0])
		iofile_rmtree(s->cwd);
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	return rc;
}

int driver_run(const char *cmd, const struct driver_env *env, const char *tag,
	       struct result_set *out, char *err, size_t errlen)
{
	struct step s;
	int rc = -1;

	if (step_prepare(&s, cmd, env, tag, err, errlen) == 0)
		rc = step_exec(&s, env, out, err, errlen);
	wl_argv_free(s.argv);
	return rc;
}

int driver_start_background(const char *cmd, const struct driver_env *env,
			    const char *tag, struct child *c, char *cwd,
			    size_t cwdlen, char *err, size_t errlen)
{
	struct step s;
	int fd, rc = -1;

	cwd[0] = 0;
	if (step_prepare(&s, cmd, env, tag, err, errlen))
		goto out_free;
	snprintf(cwd, cwdlen, "%s", s.cwd);
	fd = open(s.errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", s.errf,
			 strerror(errno));
		goto out_free;
	}
	if (s.cwd[0] && mkdir(s.cwd, 0755) && errno != EEXIST)
		snprintf(err, errlen, "cannot create '%s': %s", s.cwd,
			 strerror(errno));
	else
		rc = child_start(c, s.argv, s.cwd[0] ? s.cwd : NULL, fd, fd,
				 err, errlen);
	close(fd);
out_free:
	wl_argv_free(s.argv);
	return rc;
}
