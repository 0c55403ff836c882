// SPDX-License-Identifier: MIT
/*
 * The check of a series before a build is queued (build.h): the caps
 * and the rule of lib/patchcheck.h on the patches as sent, before
 * anything is written; each patch stored under DATA/patches/REQ/NN/NAME
 * (REQ a directory of the request's own); then build-kernel.sh --check
 * of those files on the base, bounded in time and in checks at once.
 * The builds API, submissions and bisections all check a series here;
 * a refusal names the patch, the file and the hunk, and leaves no file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "klabd/klabd.h"
#include "lab/build.h"
#include "lab/catalog.h"
#include "lib/alloc.h"
#include "lib/patchcheck.h"

/* A patch name safe as a file name: [A-Za-z0-9._-], not starting with '.' */
static void safe_name(const char *in, char *out, size_t len)
{
	size_t i, j = 0;

	for (i = 0; in[i] && j + 1 < len; i++) {
		char c = in[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    (c == '.' && j))
			out[j++] = c;
	}
	if (!j)
		j = (size_t)snprintf(out, len, "patch");
	out[j] = '\0';
}

/* Cut path at its last '/' and remove that directory: 1 when cut. */
static int rmdir_parent(char *path)
{
	char *sl = strrchr(path, '/');

	if (!sl)
		return 0;
	*sl = '\0';
	rmdir(path);
	return 1;
}

/* Remove what build_patches_store wrote: each path, its directory, and
 * the request's directory above them. */
static void patches_remove(const char *paths)
{
	char path[1400];
	const char *p = paths;
	size_t n;

	while (p && *p) {
		n = strcspn(p, "\n");
		snprintf(path, sizeof(path), "%.*s", (int)n, p);
		unlink(path);
		if (rmdir_parent(path))	/* NN */
			rmdir_parent(path);	/* the request's */
		p += n + (p[n] == '\n');
	}
}

/* One patch as DIR/NN/NAME; its path added to paths. */
static int patch_write(const char *dir, size_t i, const struct build_patch *p,
		       struct strbuf *paths, char *err, size_t errlen)
{
	char name[128], path[1400];
	FILE *f;

	safe_name(p->name, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%02zu", dir, i + 1);
	if (mkdir(path, 0755)) {
		snprintf(err, errlen, "cannot create '%.400s': %s", path,
			 strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%02zu/%s", dir, i + 1, name);
	f = fopen(path, "wxe");	/* O_CLOEXEC: other threads fork */
	if (!f || fwrite(p->text, 1, p->len, f) != p->len || fclose(f)) {
		snprintf(err, errlen, "cannot write '%.400s'", path);
		if (f)
			unlink(path);
		return -1;
	}
	sb_addf(paths, "%s%s", paths->len ? "\n" : "", path);
	return 0;
}

/* The caps and the rule of lib/patchcheck.h on the n patches at p,
 * before anything is written. */
static enum outcome patches_precheck(const struct build_patch *p, size_t n,
				     char *err, size_t errlen)
{
	size_t i, total = 0, line;
	char why[300];

	if (n > PATCH_MAX_FILES) {
		snprintf(err, errlen, "field 'patches': %zu patch files, at "
			 "most %d", n, PATCH_MAX_FILES);
		return OUT_TOOBIG;
	}
	for (i = 0; i < n; i++) {
		if (!p[i].name || !p[i].text) {
			snprintf(err, errlen, "patches[%zu]: needs 'name' and "
				 "'text' strings", i);
			return OUT_INVALID;
		}
		total += p[i].len;
		if (total > PATCH_MAX_BYTES) {
			snprintf(err, errlen, "field 'patches': over %u bytes "
				 "in all", PATCH_MAX_BYTES);
			return OUT_TOOBIG;
		}
		if (patch_check(p[i].text, p[i].len, why, sizeof(why),
				&line)) {
			snprintf(err, errlen, "cannot apply patch '%.200s': "
				 "%s (line %zu)", p[i].name, why, line);
			return OUT_REFUSED;
		}
	}
	return OUT_OK;
}

enum outcome build_patches_store(struct klabd *d, const struct build_patch *p,
				 size_t n, struct strbuf *paths, char *err,
				 size_t errlen)
{
	char dir[1100];
	size_t i;

	snprintf(dir, sizeof(dir), "%s/patches", d->data_dir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create '%.400s': %s", dir,
			 strerror(errno));
		return OUT_ERROR;
	}
	snprintf(dir, sizeof(dir), "%s/patches/req-XXXXXX", d->data_dir);
	if (!mkdtemp(dir) || chmod(dir, 0755)) {
		snprintf(err, errlen, "cannot create a directory in "
			 "'%.400s/patches': %s", d->data_dir, strerror(errno));
		return OUT_ERROR;
	}
	for (i = 0; i < n; i++) {
		if (patch_write(dir, i, &p[i], paths, err, errlen)) {
			patches_remove(paths->buf);
			rmdir(dir);
			sb_reset(paths);
			return OUT_ERROR;
		}
	}
	if (!paths->len)
		rmdir(dir);
	return OUT_OK;
}

/* build-kernel.sh --check on the base spec, within its time limit:
 * exit 2 is a patch that does not apply, status=no_commit a git base
 * without the commit asked for. */
static enum outcome patches_check_run(struct klabd *d, const char *spec,
				      const char *paths, char **commit,
				      char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT;
	const char **args;
	char *p = xstrdup(paths), lim[16], *status;
	enum outcome o;
	size_t n;
	int rc;

	args = build_args(d, spec, p, &n);
	snprintf(lim, sizeof(lim), "%d", BUILD_CHECK_SECONDS);
	args[n++] = "--check";
	args[n++] = "--time-limit";	/* the last one counts */
	args[n++] = lim;
	args[n] = NULL;
	sb_init(&out);
	rc = catalog_script_timed(d, "build-kernel.sh", args,
				  (BUILD_CHECK_SECONDS + 60) * 1000L, &out,
				  err, errlen);
	*commit = catalog_record_get(out.buf, "base_commit");
	status = catalog_record_get(out.buf, "status");
	o = !rc ? OUT_OK : rc == 2 ? OUT_REFUSED : OUT_ERROR;
	if (rc == 1 && !strcmp(status, "no_commit")) {
		snprintf(err, errlen, "field 'base': no such commit in that "
			 "base");
		o = OUT_INVALID;
	}
	if (o != OUT_OK && !err[0])
		snprintf(err, errlen, "the patch check failed");
	free(status);
	sb_release(&out);
	free(args);
	free(p);
	return o;
}

/* Patch checks running now, at most BUILD_CHECKS_MAX. */
static int checks_running;

enum outcome build_patches_check(struct klabd *d, const char *spec,
				 const char *paths, char **commit, char *err,
				 size_t errlen)
{
	enum outcome o;

	if (__atomic_add_fetch(&checks_running, 1, __ATOMIC_SEQ_CST) >
	    BUILD_CHECKS_MAX) {
		__atomic_sub_fetch(&checks_running, 1, __ATOMIC_SEQ_CST);
		*commit = xstrdup("");
		snprintf(err, errlen, "%d patch checks are running, the most "
			 "at once: retry in a minute", BUILD_CHECKS_MAX);
		return OUT_BUSY;
	}
	o = patches_check_run(d, spec, paths, commit, err, errlen);
	__atomic_sub_fetch(&checks_running, 1, __ATOMIC_SEQ_CST);
	return o;
}

enum outcome build_series_check(struct klabd *d, const char *spec,
				const struct build_patch *p, size_t n,
				struct strbuf *paths, char **commit, char *err,
				size_t errlen)
{
	enum outcome o;

	*commit = NULL;
	o = patches_precheck(p, n, err, errlen);
	if (o == OUT_OK)
		o = build_patches_store(d, p, n, paths, err, errlen);
	if (o == OUT_OK) {
		o = build_patches_check(d, spec, paths->buf, commit, err,
					errlen);
		if (o != OUT_OK)
			patches_remove(paths->buf);
	}
	if (o != OUT_OK)
		sb_reset(paths);
	return o;
}

void build_base_queued(const char *base, const char *commit,
		       struct strbuf *sb)
{
	if (*commit)
		sb_addf(sb, "%.*s@%s", (int)strcspn(base, "@"), base, commit);
	else
		sb_addf(sb, "%s", base);
}
