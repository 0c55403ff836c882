// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for klabd's HTTP API and pages, through the real route
 * table and authorisation: every request goes to http_handle()
 * (http/http.c), which libmicrohttpd's requests also go through,
 * over a real sqlite database in a temporary directory (on /dev/shm when
 * it can), reset before every input to a template that holds a submitter
 * and an operator token; the one rig, "fz0", has its own token.
 *
 * An input is up to four requests separated by "\n--\n".  In each:
 *   byte 0   bit 7 clear: a row of the route table (bits 0-5, modulo its
 *            size), whose '*'s take the line's '/'-separated pieces (a
 *            final '**' the rest); bit 7 set: the line is "METHOD URL";
 *            bit 6: read_access = token
 *   byte 1   bits 0-2 the Content-Type, bits 3-5 the Authorization (none,
 *            garbage, submitter, operator, rig, Basic, empty Bearer,
 *            lower-case "bearer" and the operator's), bit 6
 *            "Sec-Fetch-Site: cross-site", bit 7 the session cookie of a
 *            sign-in earlier in the input
 *   a line   "ARG[?QUERY]" or "METHOD URL[?QUERY]"
 *   headers  lines "Authorization: ", "Content-Type: ", "Cookie: " (the
 *            session id), "Sec-Fetch-Site: ", "Idempotency-Key: "
 *   the body; "@csrf@" in it or in the query becomes the CSRF token of
 *   the last page that showed one.
 * So one input can sign in, read a form and post it, or queue a job and
 * report on it as the rig.
 *
 * Nothing here may run a script, QEMU or a network call: POST /api/builds,
 * POST /api/submissions and POST /submit (build-kernel.sh checks patches;
 * so do the bisection posts, POST /api/bisections, POST /bisections and
 * POST /submissions/ID/bisect, which also list Debian's archive;
 * fuzz_series.c takes the splitting of a series), /api/catalog/available and
 * /api/catalog/debian (Debian's servers) and /api/agent/next (kernels
 * booted) are skipped; the rig is "remote" without power or console
 * commands; the rig manager's thread never starts.  http_handle() has no
 * connection, so no long poll parks.
 *
 * Besides the sanitizers' checks it asserts the API's contract: every
 * answer has a status in 100..599, every JSON answer parses, an error
 * says what was wrong in {"error": "..."}, no input is the server's fault
 * (a 5xx is a finding; KLAB_FUZZ_ALLOW_5XX=1 in the environment lets it
 * pass), and a route row that needs a role never answers below 400 to a
 * caller without the credential for it; each request on such a row that
 * has the credential is first sent without it (none, garbage, the other
 * tokens; a form from another site or without its CSRF token), and
 * must be refused with a 401 or 403.  KLAB_FUZZ_VERBOSE=1 prints every request
 * and its answer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http/api.h"
#include "http/auth.h"
#include "http/http.h"
#include "klabd/klabd.h"
#include "lab/catalog.h"
#include "lab/rig.h"
#include "flow/bisect.h"
#include "flow/submissions.h"
#include "db/tokens.h"
#include "lib/sha256.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_RIG "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
#define FUZZ_SUBMIT "5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b" \
	"5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b"
#define FUZZ_OPER "0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e" \
	"0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e"
#define FUZZ_MAX_REQUESTS 4
#define FUZZ_FORM "application/x-www-form-urlencoded"
#define FUZZ_CSRF_TAG "name=\"csrf\" value=\""

static const char *const fuzz_types[8] = {
	"application/json", NULL, FUZZ_FORM, "text/plain",
	"application/octet-stream", "Application/JSON; charset=utf-8",
	"multipart/form-data; boundary=x", "",
};
static const char *const fuzz_auths[8] = {
	NULL, "Bearer 0123456789abcdef", "Bearer " FUZZ_SUBMIT,
	"Bearer " FUZZ_OPER, "Bearer " FUZZ_RIG, "Basic Zm9vOmJhcg==",
	"Bearer ", "bearer " FUZZ_OPER,
};
static const char *const fuzz_headers[] = {
	"Authorization: ", "Content-Type: ", "Cookie: ", "Sec-Fetch-Site: ",
	"Idempotency-Key: ",
};
#define FUZZ_NHEADERS (sizeof(fuzz_headers) / sizeof(fuzz_headers[0]))

/* What one input remembers from answer to answer. */
struct fuzz_state {
	char session[72];	/* from the last Set-Cookie */
	char csrf[72];		/* from the last form shown */
};

static struct klabd fuzz_d;
static const struct route *fuzz_rt;
static size_t fuzz_nrt;
static char fuzz_dir[256], fuzz_db[300], fuzz_template[300];
static int fuzz_no_5xx, fuzz_verbose;

static const char fuzz_conf[] =
	"[rig fz0]\n"
	"kind = remote\n"
	"autostart = no\n"
	"token = " FUZZ_RIG "\n";

/* Copy file from to to; 0 or -1. */
static int fuzz_copy(const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	int fd, rc = -1;

	sb_init(&sb);
	if (sb_read_file(&sb, from))
		goto out;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	if (write(fd, sb.buf, sb.len) == (ssize_t)sb.len)
		rc = 0;
	if (close(fd))
		rc = -1;
out:
	sb_release(&sb);
	return rc;
}

/* Put the template back (every database handle is closed). */
static void fuzz_db_reset(void)
{
	char path[320];

	snprintf(path, sizeof(path), "%s-wal", fuzz_db);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", fuzz_db);
	unlink(path);
	if (fuzz_copy(fuzz_template, fuzz_db)) {
		fprintf(stderr, "fuzz_api: cannot copy '%s': %s\n",
			fuzz_template, strerror(errno));
		abort();
	}
}

static int fuzz_remove(const char *path, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	return remove(path);
}

/*
 * A crash ends the process without atexit: remove the directories of
 * earlier runs whose process is gone (klab-fuzz-api.PID).
 */
static void fuzz_sweep(const char *tmp)
{
	char path[300], *end;
	struct dirent *e;
	DIR *dir = opendir(tmp);
	long pid;

	for (e = dir ? readdir(dir) : NULL; e; e = readdir(dir)) {
		if (strncmp(e->d_name, "klab-fuzz-api.", 14))
			continue;
		errno = 0;
		pid = strtol(e->d_name + 14, &end, 10);
		if (errno || *end || pid <= 0 || !kill((pid_t)pid, 0) ||
		    errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name);
		nftw(path, fuzz_remove, 16, FTW_DEPTH | FTW_PHYS);
	}
	if (dir)
		closedir(dir);
}

static void fuzz_cleanup(void)
{
	rigmgr_free(&fuzz_d);
	http_stop(&fuzz_d);
	auth_destroy(fuzz_d.auth);
	fuzz_d.auth = NULL;
	if (fuzz_dir[0] &&
	    nftw(fuzz_dir, fuzz_remove, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "fuzz_api: cannot remove '%s'\n", fuzz_dir);
}

/* The users' tokens, in the template. */
static int fuzz_tokens(char *err, size_t errlen)
{
	struct db *db = klabd_db_get(&fuzz_d, err, errlen);
	char hash[AUTH_HEX_LEN + 1];
	int rc;

	if (!db)
		return -1;
	secret_hash_hex(FUZZ_SUBMIT, hash);
	rc = db_token_add(db, "fz-submit", "submitter", hash, err, errlen);
	secret_hash_hex(FUZZ_OPER, hash);
	if (rc == DB_OK)
		rc = db_token_add(db, "fz-oper", "operator", hash, err, errlen);
	klabd_db_put(&fuzz_d, db);
	return rc == DB_OK ? 0 : -1;
}

/* The daemon's state without HTTP, builder or rig manager thread. */
static void fuzz_setup(void)
{
	struct klabd *d = &fuzz_d;
	char err[512] = "", data[300];
	const char *tmp = getenv("TMPDIR");

	/* tmpfs if there is one: sqlite syncs when the last handle closes */
	if (access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	tmp = tmp && *tmp ? tmp : "/tmp";
	fuzz_sweep(tmp);
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/klab-fuzz-api.%ld", tmp,
		 (long)getpid());
	if (mkdir(fuzz_dir, 0700) && (errno != EEXIST ||
	    nftw(fuzz_dir, fuzz_remove, 16, FTW_DEPTH | FTW_PHYS) ||
	    mkdir(fuzz_dir, 0700)))
		goto out_fail;
	snprintf(fuzz_db, sizeof(fuzz_db), "%s/klab.db", fuzz_dir);
	snprintf(fuzz_template, sizeof(fuzz_template), "%s/template.db",
		 fuzz_dir);
	snprintf(data, sizeof(data), "%s/data", fuzz_dir);
	memset(d, 0, sizeof(*d));
	d->pool = klabd_pool_create();
	catalog_init(d);
	config_init(&d->cfg);
	d->db_path = strdup(fuzz_db);
	d->host = strdup("127.0.0.1");
	d->data_dir = strdup(data);
	d->top_dir = strdup(fuzz_dir);	/* no scripts, no suites */
	d->max_upload = 16LL << 20;
	d->max_builds = 1;
	fuzz_rt = http_routes(&fuzz_nrt);
	atexit(fuzz_cleanup);
	if (mkdir(data, 0700) ||
	    config_parse(&d->cfg, "fuzz.conf", fuzz_conf, strlen(fuzz_conf),
			 err, sizeof(err)) ||
	    rigmgr_init(d, err, sizeof(err)) || fuzz_tokens(err, sizeof(err)))
		goto out_fail;
	http_stop(d);	/* closes the handles: the file is complete */
	if (fuzz_copy(fuzz_db, fuzz_template))
		goto out_fail;
	return;
out_fail:
	fprintf(stderr, "fuzz_api: setup in '%s': %s\n", fuzz_dir,
		err[0] ? err : strerror(errno));
	exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *e = getenv("KLAB_FUZZ_ALLOW_5XX");

	fuzz_no_5xx = !e || strcmp(e, "1");
	e = getenv("KLAB_FUZZ_VERBOSE");
	fuzz_verbose = e && !strcmp(e, "1");
	fuzz_setup();
	return 0;
}

/* The role the Authorization header proves (ROLE_AGENT: the rig's). */
static int fuzz_role_of(const char *auth)
{
	if (!auth)
		return ROLE_OPEN;
	if (!strcmp(auth, "Bearer " FUZZ_OPER))
		return ROLE_OPERATOR;
	if (!strcmp(auth, "Bearer " FUZZ_SUBMIT))
		return ROLE_SUBMITTER;
	if (!strcmp(auth, "Bearer " FUZZ_RIG))
		return ROLE_AGENT;
	return ROLE_OPEN;
}

/* Whether a form carries the CSRF token of the session's page. */
static int fuzz_csrf_sent(const struct http_call *c, const char *csrf)
{
	size_t n = strlen(csrf);

	return n && ((c->query && strstr(c->query, csrf)) ||
		     memmem(c->body, c->body_len, csrf, n));
}

/*
 * Whether the caller may get an answer below 400 from route rt: a
 * superset of what auth.c allows (a session is taken as any role's, a
 * form as allowed when it holds the session's CSRF token anywhere).
 */
static int fuzz_may(const struct http_call *c, const struct route *rt,
		    const char *csrf)
{
	int role = fuzz_role_of(c->auth);

	if (rt->role == ROLE_OPEN)
		return 1;
	if (rt->role == ROLE_READ)
		return !fuzz_d.read_token || role >= ROLE_SUBMITTER ||
			(c->session && *c->session);
	if (rt->role == ROLE_AGENT)
		return role == ROLE_AGENT;
	if (rt->types && strstr(rt->types, FUZZ_FORM))
		return c->session && *c->session && fuzz_csrf_sent(c, csrf) &&
			(!c->fetch_site || !strcmp(c->fetch_site,
						   "same-origin"));
	return role >= rt->role;
}

static void fuzz_fail(const struct http_call *c, struct web_response *r,
		      const char *what)
{
	fprintf(stderr, "fuzz_api: %s %s (auth '%s'): %s: %d %.*s\n",
		c->method, c->url, c->auth ? c->auth : "", what, r->status,
		(int)(r->body.len > 300 ? 300 : r->body.len), r->body.buf);
	abort();
}

/* The answer keeps the API's promises; rt is NULL for a fuzzed URL. */
static void fuzz_check(const struct http_call *c, const struct route *rt,
		       const char *csrf, struct web_response *r)
{
	json_t *doc, *e;

	if (r->status < 100 || r->status > 599)
		fuzz_fail(c, r, "status out of range");
	if (fuzz_no_5xx && r->status >= 500)
		fuzz_fail(c, r, "server error");
	if (rt && r->status < 400 && !fuzz_may(c, rt, csrf))
		fuzz_fail(c, r, "allowed without the credential");
	if (r->fd >= 0 || !r->content_type ||
	    strcmp(r->content_type, "application/json"))
		return;
	doc = json_loadb(r->body.buf, r->body.len, 0, NULL);
	if (!doc)
		fuzz_fail(c, r, "JSON answer does not parse");
	e = json_object_get(doc, "error");
	if (r->status >= 400 && (!json_is_string(e) ||
				 !json_string_length(e)))
		fuzz_fail(c, r, "error without \"error\"");
	json_decref(doc);
}

/* A 404 or 405 from the route table itself (the URL is no route's). */
static int fuzz_unrouted(struct web_response *r)
{
	return (r->status == 404 && memmem(r->body.buf, r->body.len,
					   "no such page", 12)) ||
		(r->status == 405 && memmem(r->body.buf, r->body.len,
					    "method not allowed", 18));
}

/* Variant i of c without its credential; 0 when there is none. */
static int fuzz_variant(const struct http_call *c, const struct route *rt,
			size_t i, struct http_call *w)
{
	int form = rt->types && strstr(rt->types, FUZZ_FORM);

	*w = *c;
	if (i < 5) {	/* none, garbage, the three tokens */
		w->auth = fuzz_auths[i];
		w->session = NULL;
	} else if (i == 5 && form) {	/* the form from another site */
		w->fetch_site = "cross-site";
	} else if (i == 6 && form) {	/* the form without its CSRF */
		w->query = NULL;
		w->body = "";
		w->body_len = 0;
	} else {
		return 0;
	}
	return 1;
}

/*
 * Before a request that carries the credential its route row needs: the
 * same request from each caller without it (no token, garbage, a user
 * token of too low a role, the rig's token on a user's route, a user's
 * on the rig's; a form from another site or without its CSRF token),
 * which auth.c must refuse with a 401 or 403 before the handler runs.
 */
static void fuzz_weaker(const struct http_call *c, const struct route *rt,
			const char *csrf)
{
	struct http_call w;
	struct web_response r;
	size_t i;

	if (!rt || !fuzz_may(c, rt, csrf) || rt->role == ROLE_OPEN ||
	    (rt->role == ROLE_READ && !fuzz_d.read_token))
		return;
	for (i = 0; i < 7; i++) {
		if (!fuzz_variant(c, rt, i, &w) || fuzz_may(&w, rt, csrf))
			continue;
		web_response_init(&r);
		http_handle(&fuzz_d, &w, &r);
		fuzz_check(&w, rt, csrf, &r);
		if (r.status != 401 && r.status != 403 && !fuzz_unrouted(&r))
			fuzz_fail(&w, &r, "not refused without the credential");
		web_response_release(&r);
	}
}

/* Keep the session a sign-in set and the CSRF token a form showed. */
static void fuzz_remember(struct fuzz_state *st, struct web_response *r)
{
	const char *p;
	size_t n;

	if (!strncmp(r->cookie, "klab_session=", 13)) {
		n = strcspn(r->cookie + 13, ";");
		snprintf(st->session, sizeof(st->session), "%.*s", (int)n,
			 r->cookie + 13);
	}
	if (r->fd >= 0 || !r->body.len)
		return;
	p = memmem(r->body.buf, r->body.len, FUZZ_CSRF_TAG,
		   strlen(FUZZ_CSRF_TAG));
	if (!p)
		return;
	p += strlen(FUZZ_CSRF_TAG);
	n = strcspn(p, "\"");
	snprintf(st->csrf, sizeof(st->csrf), "%.*s", (int)n, p);
}

/* Routes that would run a script, QEMU or a network call. */
static int fuzz_skip(const char *method, const char *url,
		     const struct route *rt)
{
	if (rt)
		return rt->fn == api_build_add || rt->fn == api_agent_next ||
			rt->fn == api_submission_add ||
			rt->fn == page_submit_post ||
			rt->fn == api_bisection_add ||
			rt->fn == page_bisection_post ||
			rt->fn == page_bisect_submission ||
			rt->fn == api_catalog_available ||
			rt->fn == api_catalog_debian;
	return ((!strcmp(url, "/api/builds") || !strcmp(url,
		 "/api/submissions") || !strcmp(url, "/submit") ||
		 strstr(url, "/bisect")) &&
		!strcmp(method, "POST")) ||
		!strcmp(url, "/api/agent/next") ||
		!strcmp(url, "/api/catalog/available") ||
		!strcmp(url, "/api/catalog/debian");
}

/* The URL of a route's pattern, its '*'s filled from arg. */
static void fuzz_url(struct strbuf *url, const char *pat, const char *arg)
{
	size_t n;

	while (*pat) {
		if (*pat != '*') {
			sb_add(url, pat++, 1);
		} else if (pat[1] == '*') {
			sb_adds(url, arg);
			arg += strlen(arg);
			pat += 2;
		} else {
			n = strcspn(arg, "/");
			sb_add(url, arg, n);
			arg += n + (arg[n] == '/');
			pat++;
		}
	}
}

/* Copy s with "@csrf@" replaced by csrf; exactly len + 1 bytes are
 * allocated, as for a body received (ASan sees a read past its NUL). */
static char *fuzz_subst(const char *s, size_t len, const char *csrf,
			size_t *outlen)
{
	struct strbuf sb = STRBUF_INIT;
	const char *at;
	char *out;

	sb_init(&sb);
	for (;;) {
		at = memmem(s, len, "@csrf@", 6);
		if (!at)
			break;
		sb_add(&sb, s, (size_t)(at - s));
		sb_adds(&sb, csrf);
		len -= (size_t)(at - s) + 6;
		s = at + 6;
	}
	sb_add(&sb, s, len);
	out = malloc(sb.len + 1);
	if (!out)
		abort();
	memcpy(out, sb.buf, sb.len);
	out[sb.len] = '\0';
	*outlen = sb.len;
	sb_release(&sb);
	return out;
}

/* Header lines at *p override c's; *p moves past them. */
static void fuzz_parse_headers(struct http_call *c, char **p)
{
	const char **slot[FUZZ_NHEADERS] = {
		&c->auth, &c->content_type, &c->session, &c->fetch_site,
		&c->idem_key,
	};
	char *nl;
	size_t i, n;

	for (;;) {
		for (i = 0; i < FUZZ_NHEADERS; i++)
			if (!strncmp(*p, fuzz_headers[i],
				     strlen(fuzz_headers[i])))
				break;
		nl = strchr(*p, '\n');
		if (i == FUZZ_NHEADERS || !nl)
			return;
		n = strlen(fuzz_headers[i]);
		*nl = '\0';
		*slot[i] = *p + n;
		*p = nl + 1;
	}
}

/* The method, URL and query of the request line; 0, or -1 to skip. */
static int fuzz_target(struct http_call *c, unsigned char sel, char *line,
		       struct strbuf *url, const struct route **rt)
{
	char *sp, *qs = strchr(line, '?');

	if (qs)
		*qs++ = '\0';
	c->query = qs;
	*rt = NULL;
	if (sel & 0x80) {
		sp = strchr(line, ' ');
		if (sp)
			*sp++ = '\0';
		c->method = line;
		sb_adds(url, sp ? sp : "");
	} else {
		*rt = &fuzz_rt[(sel & 0x3f) % fuzz_nrt];
		c->method = (*rt)->method;
		fuzz_url(url, (*rt)->pattern, line);
	}
	c->url = url->buf;
	return fuzz_skip(c->method, c->url, *rt) ? -1 : 0;
}

/* One request: selector byte, flags byte, line, headers, body. */
static void fuzz_request(const char *s, size_t len, struct fuzz_state *st)
{
	const struct route *rt;
	struct web_response r;
	struct strbuf url = STRBUF_INIT;
	struct http_call c;
	unsigned char sel, fl;
	char *all, *p, *nl, *body = NULL, *query = NULL;
	size_t n;

	if (len < 2)
		return;
	sel = (unsigned char)s[0];
	fl = (unsigned char)s[1];
	all = malloc(len - 1);	/* a NUL in the line ends it */
	if (!all)
		abort();
	memcpy(all, s + 2, len - 2);
	all[len - 2] = '\0';
	nl = memchr(s + 2, '\n', len - 2);
	p = nl ? all + (nl - (s + 2)) + 1 : all + len - 2;
	if (nl)
		all[nl - (s + 2)] = '\0';
	memset(&c, 0, sizeof(c));
	sb_init(&url);
	if (fuzz_target(&c, sel, all, &url, &rt))
		goto out;
	c.content_type = fuzz_types[fl & 7];
	c.auth = fuzz_auths[(fl >> 3) & 7];
	c.fetch_site = fl & 0x40 ? "cross-site" : NULL;
	c.session = fl & 0x80 ? st->session : NULL;
	if (nl)
		fuzz_parse_headers(&c, &p);
	/* the body: what is left of the input, NULs and all */
	n = nl ? len - (size_t)(p - all) - 2 : 0;
	body = fuzz_subst(s + 2 + (p - all), n, st->csrf, &c.body_len);
	c.body = body;
	if (c.query)
		c.query = query = fuzz_subst(c.query, strlen(c.query),
					     st->csrf, &n);
	fuzz_d.read_token = (sel & 0x40) != 0;
	fuzz_weaker(&c, rt, st->csrf);
	web_response_init(&r);
	http_handle(&fuzz_d, &c, &r);
	if (fuzz_verbose)
		fprintf(stderr, "fuzz_api: %s %s -> %d %.*s\n", c.method,
			c.url, r.status, (int)(r.fd >= 0 || r.body.len > 200 ?
					       0 : r.body.len), r.body.buf);
	fuzz_check(&c, rt, st->csrf, &r);
	fuzz_remember(st, &r);
	web_response_release(&r);
out:
	free(query);
	free(body);
	sb_release(&url);
	free(all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size, *sep;
	struct fuzz_state st;
	char err[256] = "";
	int n;

	memset(&st, 0, sizeof(st));
	rigmgr_free(&fuzz_d);
	fuzz_db_reset();
	auth_destroy(fuzz_d.auth);
	fuzz_d.auth = auth_create(err, sizeof(err));
	if (!fuzz_d.auth || rigmgr_init(&fuzz_d, err, sizeof(err))) {
		fprintf(stderr, "fuzz_api: %s\n", err);
		abort();
	}
	for (n = 0; n < FUZZ_MAX_REQUESTS && s < end; n++) {
		sep = memmem(s, (size_t)(end - s), "\n--\n", 4);
		fuzz_request(s, (size_t)((sep ? sep : end) - s), &st);
		s = sep ? sep + 4 : end;
	}
	http_stop(&fuzz_d);	/* what the input allocated is freed now */
	return 0;
}
