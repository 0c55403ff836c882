/* SPDX-License-Identifier: MIT */
/*
 * import_priv: helpers shared by the importers (lib/import_*.c) and the
 * JSON reader in results.c; not part of the public API.  A tokenizer over a
 * byte buffer that is neither NUL-terminated nor trusted, strict number
 * parsing, kernel identifier rules, and an accumulator that collects
 * results with their source lines so an importer can reject duplicates and
 * then hand everything to the caller's result_set in one step.
 */
#ifndef KLAB_IMPORT_PRIV_H
#define KLAB_IMPORT_PRIV_H

#include <stddef.h>

#include "import.h"
#include "results.h"

#define IMPORT_NAME_MAX 128	/* metric, unit, rig, suite, kernel names */

/* A whitespace-separated token; p points into the caller's buffer. */
struct itok {
	const char *p;
	size_t n;
	int line;	/* 1-based */
	int bol;	/* first token of its line */
};

/*
 * Tokenizer.  Whitespace is ASCII blanks, NUL and UTF-8 no-break spaces.
 * At the start of every line a mail quote prefix ("> ", ">> ", "> > ") is
 * skipped; with drop_gt set, tokens made only of '>' are skipped anywhere
 * (quote marks of a mail re-wrapped onto fewer lines).
 */
struct ilex {
	const char *buf;
	size_t len, pos;
	int line;
	int at_bol;
	int drop_gt;
};

void ilex_init(struct ilex *lx, const char *buf, size_t len, int first_line);
/* 1 with *t filled in, 0 at the end of the buffer. */
int ilex_next(struct ilex *lx, struct itok *t);

/* One line of a buffer, without its newline. */
struct iline {
	const char *p;
	size_t n;
	int line;
};
/* Iterate lines: *pos starts at 0; 1 with *l filled in, 0 at the end. */
int iline_next(const char *buf, size_t len, size_t *pos, int *lineno,
	       struct iline *l);

/* Tokens of one line into t[0..max); returns how many the line has. */
size_t iline_tokens(const struct iline *l, struct itok *t, size_t max);
/*
 * The line-by-line importers' loop: fn(ctx, t, n, line, err) with the
 * tokens of each line of buf (n at most ILINE_MAXTOK), up to the first
 * call that fails.  Returns 0, or -1 when a call returned -1.
 */
#define ILINE_MAXTOK 32
int iline_each(const char *buf, size_t len,
	       int (*fn)(void *ctx, const struct itok *t, size_t n, int line,
			 struct import_error *err),
	       void *ctx, struct import_error *err);

/* A kernel identifier token, a trailing ':' dropped, into buf; 0 or -1. */
int itok_kernel(const struct itok *t, char *buf, size_t len);

int itok_eq(const struct itok *t, const char *s);
int itok_caseeq(const struct itok *t, const char *s);
int itok_all(const struct itok *t, char c);	/* only c, at least 2 */
/* A finite decimal number, nothing else; 0 or -1. */
int num_parse(const char *p, size_t n, double *out);
int itok_num(const struct itok *t, double *out);
/* A printable, bounded copy of a token for error messages. */
void itok_show(const struct itok *t, char *buf, size_t len);
void bytes_show(const char *p, size_t n, char *buf, size_t len);
/* The kernel rule of ident.h (ident_check with IDENT_KERNEL). */
int kernel_id_valid(const char *p, size_t n);
/* Copy a token into buf as a NUL-terminated string; -1 when too long. */
int itok_copy(const struct itok *t, char *buf, size_t len);

/*
 * dbench's result line, "Throughput X MB/sec ..." with or without a
 * leading kernel token: the index of "Throughput" plus one, or 0 when the
 * line is not one (import_dbench.c; the mail splitter asks it too).
 */
size_t dbench_throughput_at(const struct itok *t, size_t n);

/* Results under construction, each with the line it came from. */
struct iacc {
	struct result_set rs;
	int *line;
	size_t nline;
};

void iacc_init(struct iacc *a);
void iacc_release(struct iacc *a);
void iacc_add(struct iacc *a, const char *kernel, const char *metric,
	      const char *unit, double value, enum metric_dir dir, int line);
/*
 * Find two results with the same kernel and metric: 1 with *first, *second
 * (the later one) set, 0 when there are none.
 */
int iacc_find_dup(const struct iacc *a, size_t *first, size_t *second);
/* Move every result into out (cannot fail); returns how many. */
int iacc_commit(struct iacc *a, struct result_set *out);
/*
 * The common end of a text importer: reject duplicates (reported through
 * what, e.g. "kernel '%s' has two results for '%s'"), an empty result, or
 * commit.  Returns the count or -1.
 */
int iacc_finish(struct iacc *a, struct result_set *out,
		struct import_error *err, const char *format);

/*
 * Parse a JSON object from an untrusted buffer.  With noise set, text before
 * the first line that starts with '{' (or the first '{') is skipped and so
 * is text after the object.  Returns a new reference, or NULL with err
 * naming the line (of buf) and jansson's reason.
 */
struct json_t *import_json_load(const char *buf, size_t len, int noise,
				struct import_error *err);

/* Line ranges of a buffer, [first, last], 1-based. */
struct import_spans {
	struct {
		int first, last;
	} *v;
	size_t n, alloc;
};

/*
 * The tiobench importer without its final step: results into acc (checked
 * for duplicates), and with sp set the lines of each section, from its
 * title to its last row.  0, or -1 with err set (acc then holds what was
 * read so far: release it).  sp->v is the caller's to free.
 */
int import_tiobench_acc(const char *buf, size_t len, struct iacc *acc,
			struct import_spans *sp, struct import_error *err);

/* import_mail.c: every kind of a mail (see import_text_report). */
int import_mail(const char *buf, size_t len, const char *kernel,
		struct result_set *out, struct import_report *rep,
		struct import_error *err);
/* How many kinds the text holds (tiobench: whether it has tables). */
int import_mail_kinds(const char *buf, size_t len, int tiobench);

/* The kernel for results whose text names none: kernel, else out->kernel. */
const char *import_default_kernel(const char *kernel,
				  const struct result_set *out);

#endif
