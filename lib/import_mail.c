// SPDX-License-Identifier: MIT
/*
 * import_mail: a pasted mail that mixes several kinds of results, say
 * tiobench tables, then dbench Throughput lines per kernel, then read
 * latency lines per kernel.  The mail is split into segments by kind and
 * each segment goes to the kind's own importer, which attributes kernels
 * as it always does (the table's rows, the identifier in front of a line,
 * else the default kernel).
 *
 * The split works on lines.  The mail's header block (when the paste
 * starts with "From " or a header such as "Subject:") and its signature
 * (from a "-- " line to the next quoted line) are no segment.  tiobench
 * sections are found by the tiobench importer itself, which reads tokens
 * and so also finds re-wrapped and quoted tables; the lines from each
 * title to its last row are the tiobench segment.  Of the other lines, a
 * dbench segment line is a Throughput line ("[ID] Throughput V MB/sec")
 * or a line of an operation table; a read latency line is "[ID] reads:"
 * or "[ID] read latency", where a leading ID must hold a digit and a line
 * without one must go on with "min" (so prose such as "the read latency
 * went up" is prose).  Each importer then reads a copy of the mail in
 * which every line of other segments is blank, so line numbers in errors
 * are the mail's own.
 */
#include "import.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "import_priv.h"

enum seg { SEG_PROSE, SEG_SKIP, SEG_TIOBENCH, SEG_DBENCH, SEG_READLAT };

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

static int has_digit(const struct itok *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->p[i] >= '0' && t->p[i] <= '9')
			return 1;
	return 0;
}

static int lead_kernel(const struct itok *t)
{
	char id[IMPORT_NAME_MAX + 1];

	return has_digit(t) && !itok_kernel(t, id, sizeof(id));
}

/* "reads:" or "read latency" at t[k]. */
static int readlat_at(const struct itok *t, size_t n, size_t k)
{
	if (k < n && itok_eq(&t[k], "reads:"))
		return 1;
	return k + 1 < n && itok_eq(&t[k], "read") &&
	       itok_eq(&t[k + 1], "latency");
}

static int is_readlat(const struct itok *t, size_t n)
{
	if (n > 1 && readlat_at(t, n, 1) && lead_kernel(&t[0]))
		return 1;
	if (!readlat_at(t, n, 0))
		return 0;
	return itok_eq(&t[0], "reads:") || (n > 2 && itok_eq(&t[2], "min"));
}

/* An operation's name in dbench's table: letters, digits, '_'. */
static int op_name(const struct itok *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!isalnum((unsigned char)t->p[i]) && t->p[i] != '_')
			return 0;
	return t->n > 0;
}

/*
 * The operation table of dbench 4: its header, its rule, then rows of a
 * name and numbers; *state is 0 outside, 1 after the header, 2 in rows.
 */
static int is_op_table(const struct itok *t, size_t n, int *state)
{
	double v;

	if (n == 4 && itok_eq(&t[0], "Operation") && itok_eq(&t[1], "Count") &&
	    itok_eq(&t[2], "AvgLat") && itok_eq(&t[3], "MaxLat")) {
		*state = 1;
		return 1;
	}
	if (*state == 1 && n == 1 && itok_all(&t[0], '-')) {
		*state = 2;
		return 1;
	}
	if (*state == 2 && n >= 2 && op_name(&t[0]) && !itok_num(&t[1], &v))
		return 1;
	*state = 0;
	return 0;
}

/* Lines that are no one's yet: dbench, read latency or prose. */
static void classify_lines(struct mail *m)
{
	struct itok t[ILINE_MAXTOK];
	struct iline l;
	size_t pos = 0, n;
	int lineno = 0, table = 0;

	while (iline_next(m->buf, m->len, &pos, &lineno, &l)) {
		if (m->seg[l.line] != SEG_PROSE) {
			table = 0;
			continue;
		}
		n = iline_tokens(&l, t, ILINE_MAXTOK);
		if (n > ILINE_MAXTOK)
			n = ILINE_MAXTOK;
		if (is_op_table(t, n, &table) || dbench_throughput_at(t, n))
			m->seg[l.line] = SEG_DBENCH;
		else if (is_readlat(t, n))
			m->seg[l.line] = SEG_READLAT;
	}
}

/* A copy of the mail with the lines of other segments blank; free it. */
static char *mail_segment(const struct mail *m, enum seg s, size_t *len)
{
	char *out = malloc(m->len ? m->len : 1);
	struct iline l;
	size_t pos = 0, o = 0;
	int lineno = 0;

	if (!out)
		abort();
	while (iline_next(m->buf, m->len, &pos, &lineno, &l)) {
		if (m->seg[l.line] == s) {
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

/* The tiobench sections of the mail (header and signature blank). */
static int mail_tiobench(struct mail *m, struct iacc *acc,
			 struct import_error *err)
{
	struct import_spans sp = { NULL, 0, 0 };
	size_t len, i;
	char *body = mail_segment(m, SEG_PROSE, &len);
	int rc, l;

	rc = import_tiobench_acc(body, len, acc, &sp, err);
	for (i = 0; !rc && acc->rs.n && i < sp.n; i++)
		for (l = sp.v[i].first; l <= sp.v[i].last && l <= m->nlines;
		     l++)
			m->seg[l] = SEG_TIOBENCH;
	free(sp.v);
	free(body);
	return rc;
}

static const struct {
	enum seg seg;
	enum import_format fmt;
	int (*parse)(const char *, size_t, const char *, struct result_set *,
		     struct import_error *);
} kinds[IMPORT_MAX_PARTS] = {
	{ SEG_TIOBENCH, IMPORT_TIOBENCH, NULL },
	{ SEG_DBENCH, IMPORT_DBENCH, import_dbench },
	{ SEG_READLAT, IMPORT_READLAT, import_readlat },
};

/* The kinds present, in order of their first line: how many. */
static size_t mail_order(const struct mail *m, size_t order[])
{
	int first[IMPORT_MAX_PARTS] = { 0 };
	size_t i, j, n = 0;
	int l;

	for (l = m->nlines; l >= 1; l--)
		for (i = 0; i < IMPORT_MAX_PARTS; i++)
			if (m->seg[l] == kinds[i].seg)
				first[i] = l;
	for (i = 0; i < IMPORT_MAX_PARTS; i++) {
		if (!first[i])
			continue;
		for (j = n; j > 0 && first[order[j - 1]] > first[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	return n;
}

/* Each kind's importer on its segment, in order, into all; 0 or -1. */
static int mail_parts(struct mail *m, const char *kernel, struct iacc *tio,
		      struct iacc *all, struct import_report *rep,
		      struct import_error *err)
{
	size_t order[IMPORT_MAX_PARTS], n = mail_order(m, order), i, len;
	size_t before;
	char *seg;
	int rc;

	for (i = 0; i < n; i++) {
		before = all->rs.n;
		if (kinds[order[i]].seg == SEG_TIOBENCH) {
			iacc_commit(tio, &all->rs);
		} else {
			seg = mail_segment(m, kinds[order[i]].seg, &len);
			rc = kinds[order[i]].parse(seg, len, kernel, &all->rs,
						   err);
			free(seg);
			if (rc < 0)
				return -1;
		}
		rep->part[i].fmt = kinds[order[i]].fmt;
		rep->part[i].first = before;
		rep->part[i].n = all->rs.n - before;
	}
	rep->nparts = n;
	if (n == 0)
		return import_fail(err, 0, "format", "no tiobench table, "
				   "dbench Throughput line or read latency "
				   "line found");
	return 0;
}

int import_mail(const char *buf, size_t len, const char *kernel,
		struct result_set *out, struct import_report *rep,
		struct import_error *err)
{
	struct import_report r;
	struct iacc tio, all;
	struct mail m;
	size_t i, before = out->n;
	int rc;

	memset(&r, 0, sizeof(r));
	iacc_init(&tio);
	iacc_init(&all);
	mail_init(&m, buf, len);
	kernel = import_default_kernel(kernel, out);
	rc = mail_tiobench(&m, &tio, err);
	if (!rc) {
		classify_lines(&m);
		rc = mail_parts(&m, kernel, &tio, &all, &r, err);
	}
	free(m.seg);
	iacc_release(&tio);
	if (rc) {
		iacc_release(&all);
		return -1;
	}
	for (i = 0; i < r.nparts; i++)
		r.part[i].first += before;
	if (rep)
		*rep = r;
	result_set_setstr(&out->format, r.nparts > 1 ? "mail" :
			  import_format_name(r.part[0].fmt));
	return iacc_commit(&all, out);
}

/* How many kinds a text holds, for the choice of import_mail. */
int import_mail_kinds(const char *buf, size_t len, int tiobench)
{
	struct mail m;
	int l, dbench = 0, readlat = 0;

	mail_init(&m, buf, len);
	classify_lines(&m);
	for (l = 1; l <= m.nlines; l++) {
		dbench |= m.seg[l] == SEG_DBENCH;
		readlat |= m.seg[l] == SEG_READLAT;
	}
	free(m.seg);
	return !!tiobench + dbench + readlat;
}
