// SPDX-License-Identifier: MIT
/*
 * import_mail: a pasted mail that mixes several kinds of results, say
 * tiobench tables, then dbench Throughput lines per kernel, then read
 * latency lines per kernel.  Each kind is read by its own importer, which
 * attributes kernels as it always does (the table's rows, the identifier
 * in front of a line, else the default kernel).
 *
 * The mail's header block (when the paste starts with "From " or a header
 * such as "Subject:") and its signature (from a "-- " line to the next
 * quoted line) are not read: the importers read a copy of the mail in
 * which those lines are blank, so line numbers in errors are the mail's
 * own.  Every importer reads tokens, not lines, so a mail an archive
 * re-flowed into one paragraph, or a client wrapped, imports as the
 * original would.  The tiobench importer finds its sections first; their
 * bytes are then blanked, and the dbench and read latency results are
 * read in one pass over the rest (import_text.c), so a token is read by
 * one kind at most and the first malformed result is the one reported.
 * Prose around them is skipped: a dbench result starts at "Throughput V",
 * a read latency one at "reads: V" or "read latency min".
 */
#include "import.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "import_priv.h"

enum seg { SEG_BODY, SEG_SKIP };

struct mail {
	const char *buf;
	size_t len;
	unsigned char *seg;	/* per line, seg[0] unused */
	int nlines;
};

/* Header names a pasted mail starts with (RFC 5322 and common ones). */
static const char *const header_names[] = {
	"From", "To", "Cc", "Bcc", "Subject", "Date", "Message-ID",
	"Message-Id", "In-Reply-To", "References", "Reply-To", "Sender",
	"Return-Path", "Received", "Delivered-To", "MIME-Version",
	"Content-Type", "Content-Transfer-Encoding", "User-Agent",
};

static int is_header_line(const struct iline *l)
{
	const char *colon = memchr(l->p, ':', l->n);
	size_t i, k;

	if (l->n >= 5 && !memcmp(l->p, "From ", 5))
		return 1;
	if (!colon)
		return 0;
	k = (size_t)(colon - l->p);
	if (k > 2 && (!strncmp(l->p, "X-", 2) || !strncmp(l->p, "List-", 5)))
		return 1;
	for (i = 0; i < sizeof(header_names) / sizeof(header_names[0]); i++)
		if (strlen(header_names[i]) == k &&
		    !strncasecmp(l->p, header_names[i], k))
			return 1;
	return 0;
}

static int is_blank_line(const struct iline *l)
{
	struct itok t;

	return iline_tokens(l, &t, 1) == 0;
}

/* "-- " (or "--") alone, not quoted: a signature starts. */
static int is_sig_line(const struct iline *l)
{
	size_t n = l->n;

	if (n && l->p[n - 1] == '\r')
		n--;
	return (n == 2 || n == 3) && !memcmp(l->p, "-- ", n);
}

/* Header block and signature lines become SEG_SKIP. */
static void mark_header_sig(struct mail *m)
{
	struct iline l;
	size_t pos = 0;
	int lineno = 0, in_header = 0, in_sig = 0;

	while (iline_next(m->buf, m->len, &pos, &lineno, &l)) {
		if (l.line == 1)
			in_header = is_header_line(&l);
		else if (in_header && is_blank_line(&l))
			in_header = 0;
		if (!in_header && l.n && l.p[0] == '>')
			in_sig = 0;
		else if (!in_header && is_sig_line(&l))
			in_sig = 1;
		if (in_header || in_sig)
			m->seg[l.line] = SEG_SKIP;
	}
}

/* A copy of the mail with its header and signature lines blank; free it. */
static char *mail_body(const struct mail *m, size_t *len)
{
	char *out = malloc(m->len ? m->len : 1);
	struct iline l;
	size_t pos = 0, o = 0;
	int lineno = 0;

	if (!out)
		abort();
	while (iline_next(m->buf, m->len, &pos, &lineno, &l)) {
		if (m->seg[l.line] == SEG_BODY) {
			memcpy(out + o, l.p, l.n);
			o += l.n;
		}
		if (l.p + l.n < m->buf + m->len)
			out[o++] = '\n';
	}
	*len = o;
	return out;
}

static void mail_init(struct mail *m, const char *buf, size_t len)
{
	size_t i;

	m->buf = buf;
	m->len = len;
	m->nlines = 1;
	for (i = 0; i < len; i++)
		if (buf[i] == '\n' && m->nlines < INT_MAX)
			m->nlines++;
	m->seg = calloc((size_t)m->nlines + 1, 1);
	if (!m->seg)
		abort();
	mark_header_sig(m);
}

/* The bytes of sp become blanks, line breaks kept. */
static void blank_spans(char *body, const struct import_spans *sp)
{
	size_t i, j;

	for (i = 0; i < sp->n; i++)
		for (j = sp->v[i].start; j < sp->v[i].end; j++)
			if (body[j] != '\n')
				body[j] = ' ';
}

/* What each kind read from the mail. */
struct mail_kinds {
	struct iacc tio;
	struct import_spans tio_sp;
	struct itext x[2];	/* dbench, read latency */
};

static void mail_kinds_init(struct mail_kinds *k, const char *kernel)
{
	memset(k, 0, sizeof(*k));
	iacc_init(&k->tio);
	itext_init(&k->x[0], &itext_dbench, kernel);
	itext_init(&k->x[1], &itext_readlat, kernel);
}

static void mail_kinds_release(struct mail_kinds *k)
{
	iacc_release(&k->tio);
	free(k->tio_sp.v);
	itext_release(&k->x[0]);
	itext_release(&k->x[1]);
}

/* Every kind of the body (which this blanks as it goes); 0 or -1. */
static int mail_read(struct mail_kinds *k, char *body, size_t len,
		     struct import_error *err)
{
	if (import_tiobench_acc(body, len, &k->tio, &k->tio_sp, err))
		return -1;
	blank_spans(body, &k->tio_sp);
	return itext_read(body, len, k->x, 2, err);
}

struct mail_part {
	enum import_format fmt;
	struct iacc *acc;
	size_t first;	/* offset of its first result in the body */
};

static void part_add(struct mail_part *v, size_t *n, enum import_format fmt,
		     struct iacc *acc, const struct import_spans *sp)
{
	struct mail_part p = { fmt, acc, sp->n ? sp->v[0].start : 0 };
	size_t j;

	if (!acc->rs.n)
		return;
	for (j = *n; j > 0 && v[j - 1].first > p.first; j--)
		v[j] = v[j - 1];
	v[j] = p;
	(*n)++;
}

/* The kinds with results, in the order of their first result. */
static size_t mail_order(struct mail_kinds *k, struct mail_part v[])
{
	size_t n = 0, i;

	part_add(v, &n, IMPORT_TIOBENCH, &k->tio, &k->tio_sp);
	for (i = 0; i < 2; i++)
		part_add(v, &n, k->x[i].ops->fmt, &k->x[i].acc, &k->x[i].sp);
	return n;
}

/* Each kind's results into out, in order, rep filled; 0 or -1. */
static int mail_parts(struct mail_kinds *k, struct result_set *out,
		      struct import_report *rep, struct import_error *err)
{
	struct mail_part v[IMPORT_MAX_PARTS];
	size_t n = mail_order(k, v), i;

	if (n == 0)
		return import_fail(err, 0, "format", "no tiobench table, "
				   "dbench Throughput line or read latency "
				   "line found");
	for (i = 0; i < n; i++)
		if (iacc_check_dups(v[i].acc, err))
			return -1;
	for (i = 0; i < n; i++) {
		rep->part[i].fmt = v[i].fmt;
		rep->part[i].first = out->n;
		rep->part[i].n = (size_t)iacc_commit(v[i].acc, out);
	}
	rep->nparts = n;
	return 0;
}

int import_mail(const char *buf, size_t len, const char *kernel,
		struct result_set *out, struct import_report *rep,
		struct import_error *err)
{
	struct import_report r;
	struct mail_kinds k;
	struct mail m;
	size_t blen, before = out->n;
	char *body;
	int rc;

	memset(&r, 0, sizeof(r));
	mail_init(&m, buf, len);
	body = mail_body(&m, &blen);
	mail_kinds_init(&k, import_default_kernel(kernel, out));
	rc = mail_read(&k, body, blen, err);
	if (!rc)
		rc = mail_parts(&k, out, &r, err);
	mail_kinds_release(&k);
	free(body);
	free(m.seg);
	if (rc)
		return -1;
	if (rep)
		*rep = r;
	result_set_setstr(&out->format, r.nparts > 1 ? "mail" :
			  import_format_name(r.part[0].fmt));
	return (int)(out->n - before);
}

/*
 * The kinds a text holds, for the choice of import_mail.  Results are
 * read for a kernel of their own: only whether they are there matters.
 */
int import_mail_kinds(const char *buf, size_t len, int tiobench)
{
	struct import_error err;
	struct itext x[2];
	struct mail m;
	size_t blen, i;
	char *body;
	int kinds = tiobench ? 1 << IMPORT_TIOBENCH : 0;

	mail_init(&m, buf, len);
	body = mail_body(&m, &blen);
	itext_init(&x[0], &itext_dbench, "kernel");
	itext_init(&x[1], &itext_readlat, "kernel");
	if (itext_read(body, blen, x, 2, &err))
		kinds = -1;
	for (i = 0; i < 2; i++) {
		if (kinds >= 0 && x[i].acc.rs.n)
			kinds |= 1 << x[i].ops->fmt;
		itext_release(&x[i]);
	}
	free(body);
	free(m.seg);
	return kinds;
}
