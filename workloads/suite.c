// SPDX-License-Identifier: MIT
/*
 * suite: parse suite files and expand their placeholders (see suite.h and
 * docs/SUITES.md).  The lines are read by lib/config.c's key = value
 * reader, the one klabd's configuration uses; the keys, their values and
 * what a suite refuses beyond that are here.
 */
#include "workloads/suite.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/alloc.h"
#include "lib/config.h"
#include "lib/strbuf.h"

/* The longest line a suite may have, its newline left out (the old
 * reader's 4096-byte buffer): a longer one is refused, never split. */
#define SUITE_LINE_MAX 4094

static char **field(struct suite *s, const char *key)
{
	static const char *const keys[] = {
		"name", "description", "workload", "warmup", "background",
		"background_warmup", "timeout", "filesystem", "disk_mb",
	};
	char **f[] = {
		&s->name, &s->description, &s->workload, &s->warmup,
		&s->background, &s->background_warmup, &s->timeout,
		&s->filesystem, &s->disk_mb,
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return f[i];
	return NULL;
}

static int all_of(const char *s, size_t n, const char *set)
{
	return n && strspn(s, set) >= n;
}

/*
 * The queue key: "NAME=VALUE ..." with NAME a queue attribute ([a-z0-9_],
 * or iosched/ and one for the scheduler's tunables) and VALUE a decimal
 * integer.  The scheduler itself is the job's option, not a suite's.
 * The vm key: NAME a file of /proc/sys/vm/ ([a-z0-9_]) and VALUE a
 * decimal integer or one {N} the scale multiplies (klab-run expands it).
 */
static int set_attrs(struct suite *s, const char *key, const char *val,
		     char *err, size_t errlen)
{
	static const char lower[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
	int vm = strcmp(key, "vm") == 0;
	struct suite_qattr *arr = vm ? s->vm : s->queue;
	unsigned *n_attr = vm ? &s->nvm : &s->nqueue;
	unsigned max = vm ? SUITE_MAX_VM : SUITE_MAX_QUEUE;
	const char *p = val;

	if (*n_attr) {
		snprintf(err, errlen, "key '%s' given twice", key);
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, " \t"), k, vn;
		const char *eq = memchr(p, '=', n), *name = p, *v;
		struct suite_qattr *a;

		if (!eq) {
			snprintf(err, errlen, "%s: expected NAME=VALUE, "
				 "got '%.*s'", key, (int)n, p);
			return -1;
		}
		k = (size_t)(eq - p);
		if (!vm && k > 8 && strncmp(p, "iosched/", 8) == 0)
			name += 8;
		if (k >= sizeof(a->name) ||
		    !all_of(name, k - (name - p), lower) ||
		    (!vm && k == 9 && strncmp(p, "scheduler", 9) == 0)) {
			snprintf(err, errlen, vm ? "%s: invalid attribute "
				 "'%.*s' (a name in /proc/sys/vm/)" :
				 "%s: invalid attribute '%.*s' (a name in "
				 "/sys/block/DEV/queue/ or iosched/NAME; the "
				 "scheduler is the job's option)", key, (int)k,
				 p);
			return -1;
		}
		v = eq + 1;
		vn = n - k - 1;
		if (vn >= sizeof(a->value) ||
		    !(all_of(v, vn, "0123456789") ||
		      (vm && vn > 2 && v[0] == '{' && v[vn - 1] == '}' &&
		       all_of(v + 1, vn - 2, "0123456789")))) {
			snprintf(err, errlen, "%s: value of '%.*s' must be a "
				 "decimal integer%s, got '%.*s'", key, (int)k,
				 p, vm ? " or {N}" : "", (int)vn, v);
			return -1;
		}
		if (*n_attr == max) {
			snprintf(err, errlen, "%s: more than %u attributes",
				 key, max);
			return -1;
		}
		a = &arr[(*n_attr)++];
		snprintf(a->name, sizeof(a->name), "%.*s", (int)k, p);
		snprintf(a->value, sizeof(a->value), "%.*s", (int)vn, v);
		p += n;
		p += strspn(p, " \t");
	}
	if (!*n_attr) {
		snprintf(err, errlen, "%s: no attribute given", key);
		return -1;
	}
	return 0;
}

static int set_key(struct suite *s, const char *key, const char *val,
		   char *err, size_t errlen)
{
	char **f;
	char *end;
	long n;

	if (strcmp(key, "queue") == 0 || strcmp(key, "vm") == 0)
		return set_attrs(s, key, val, err, errlen);
	if (strcmp(key, "repetitions") == 0) {
		errno = 0;
		n = strtol(val, &end, 10);
		if (errno || end == val || *end || n < 1 || n > 1000) {
			snprintf(err, errlen, "invalid repetitions '%s' "
				 "(1 to 1000)", val);
			return -1;
		}
		s->repetitions = (unsigned)n;
		return 0;
	}
	f = field(s, key);
	if (!f) {
		snprintf(err, errlen, "unknown key '%s'", key);
		return -1;
	}
	if (*f) {
		snprintf(err, errlen, "key '%s' given twice", key);
		return -1;
	}
	*f = strdup(val);
	if (!*f)
		abort();
	return 0;
}

static int check_suite(struct suite *s, char *err, size_t errlen)
{
	if (!s->name || !s->workload || !s->warmup) {
		snprintf(err, errlen, "'%s': missing key '%s'", s->path,
			 !s->name ? "name" : !s->workload ? "workload"
							 : "warmup");
		return -1;
	}
	if (s->filesystem && strcmp(s->filesystem, "ext4") &&
	    strcmp(s->filesystem, "none")) {
		snprintf(err, errlen, "'%s': filesystem '%s' is not supported "
			 "(ext4 or none)", s->path, s->filesystem);
		return -1;
	}
	if (s->filesystem && strcmp(s->filesystem, "none") == 0) {
		free(s->filesystem);
		s->filesystem = NULL;
	}
	if (strcmp(s->warmup, "none") == 0) {
		free(s->warmup);
		s->warmup = NULL;
	}
	if (!s->repetitions)
		s->repetitions = 1;
	if (!s->timeout)
		s->timeout = strdup("3600");
	if (!s->background_warmup)
		s->background_warmup = strdup("2");
	if (!s->timeout || !s->background_warmup)
		abort();
	return 0;
}

/*
 * One line of a suite file, as lib/config.c's reader split it: 0, or -1
 * with msg saying why.  A suite has no sections ("[x]" is no key).
 */
static int suite_line(struct suite *s, const struct config_reader *r,
		      enum config_line_kind kind, const char *key,
		      const char *value, char *msg, size_t msglen)
{
	if (r->n > SUITE_LINE_MAX) {
		snprintf(msg, msglen, "line longer than %d bytes",
			 SUITE_LINE_MAX);
		return -1;
	}
	switch (kind) {
	case CONFIG_BLANK:
		return 0;
	case CONFIG_PAIR:
		return set_key(s, key, value, msg, msglen);
	case CONFIG_NUL:
		snprintf(msg, msglen, "NUL byte in line");
		return -1;
	case CONFIG_SECTION:
	case CONFIG_BAD:
		break;
	}
	snprintf(msg, msglen, "expected 'key = value'");
	return -1;
}

int suite_load(struct suite *s, const char *path, char *err, size_t errlen)
{
	struct strbuf text = STRBUF_INIT;
	struct config_reader r;
	enum config_line_kind kind;
	char msg[512], *key, *value;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->path = xstrdup(path);
	sb_init(&text);
	if (sb_read_file(&text, path) < 0) {
		snprintf(err, errlen, "cannot read suite '%s': %s", path,
			 strerror(errno));
		sb_release(&text);
		return -1;
	}
	config_reader_init(&r, text.buf, text.len);
	while (!rc && config_reader_next(&r, &kind, &key, &value)) {
		rc = suite_line(s, &r, kind, key, value, msg, sizeof(msg));
		free(key);
		free(value);
	}
	sb_release(&text);
	if (rc) {
		snprintf(err, errlen, "'%s' line %d: %s", path, r.line, msg);
		return -1;
	}
	return check_suite(s, err, errlen);
}

void suite_release(struct suite *s)
{
	free(s->path);
	free(s->name);
	free(s->description);
	free(s->workload);
	free(s->warmup);
	free(s->background);
	free(s->background_warmup);
	free(s->timeout);
	free(s->filesystem);
	free(s->disk_mb);
	memset(s, 0, sizeof(*s));
}

char *suite_find(const char *name, const char *const *dirs, char *err,
		 size_t errlen)
{
	char path[4096];
	size_t i;

	if (strchr(name, '/')) {
		if (access(name, R_OK) == 0)
			return strdup(name);
		snprintf(err, errlen, "cannot read suite '%s': %s", name,
			 strerror(errno));
		return NULL;
	}
	for (i = 0; dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s.suite", dirs[i], name);
		if (access(path, R_OK) == 0)
			return strdup(path);
	}
	snprintf(err, errlen, "unknown suite '%s' (looked in %s%s)", name,
		 dirs[0] ? dirs[0] : "no directory", dirs[0] && dirs[1] ?
		 " and others" : "");
	return NULL;
}

static int expand_one(struct strbuf *sb, const char *name,
		      const struct suite_vars *v)
{
	char *end;
	double n;

	if (strcmp(name, "disk") == 0) {
		sb_adds(sb, v->disk);
	} else if (strcmp(name, "disks") == 0) {
		sb_adds(sb, v->disks);
	} else if (strcmp(name, "id") == 0) {
		sb_adds(sb, v->id);
	} else if (strcmp(name, "ncpu") == 0) {
		sb_addf(sb, "%u", v->ncpu);
	} else {
		n = strtod(name, &end);
		if (end == name || *end || !isfinite(n) || n < 0)
			return -1;
		n = floor(n * v->scale + 0.5);
		sb_addf(sb, "%.0f", n < 1 ? 1 : n);
	}
	return 0;
}

char *suite_expand(const char *s, const struct suite_vars *v, char *err,
		   size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char name[64];

	sb_init(&sb);
	while (*s) {
		const char *close;

		if (*s != '{') {
			sb_addc(&sb, *s++);
			continue;
		}
		close = strchr(s, '}');
		if (!close || (size_t)(close - s - 1) >= sizeof(name)) {
			snprintf(err, errlen, "unterminated '{' in '%s'", s);
			goto out_fail;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(close - s - 1),
			 s + 1);
		if (expand_one(&sb, name, v)) {
			snprintf(err, errlen, "unknown placeholder '{%s}'",
				 name);
			goto out_fail;
		}
		s = close + 1;
	}
	return sb_detach(&sb, NULL);
out_fail:
	sb_release(&sb);
	return NULL;
}
