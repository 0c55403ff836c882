/* SPDX-License-Identifier: MIT */
/*
 * import_priv: helpers shared by the importers (lib/import_*.c) and the
 * JSON reader in results.c; not part of the public API.  A tokenizer over a
 * byte buffer that is neither NUL-terminated nor trusted, strict number
 * parsing, kernel identifier rules, and an accumulator that collects
 * results with their source lines so an importer can reject duplicates and
 * then hand everything to the caller's result_set in one step; the reader
 * of results in running text that dbench and read latency share.
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
 * Two results of one kernel and metric in a: -1 with err naming the
 * second ("kernel '%s' has a second '%s' result (first on line %d)"),
 * else 0.
 */
int iacc_check_dups(const struct iacc *a, struct import_error *err);
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

/* Byte ranges of a buffer, [start, end). */
struct import_spans {
	struct {
		size_t start, end;
	} *v;
	size_t n, alloc;
};

void import_spans_add(struct import_spans *sp, size_t start, size_t end);

/*
 * The tiobench importer without its final step: results into acc (checked
 * for duplicates), and with sp set the bytes of each section, from its
 * title to its last row.  0, or -1 with err set (acc then holds what was
 * read so far: release it).  sp->v is the caller's to free.
 */
int import_tiobench_acc(const char *buf, size_t len, struct iacc *acc,
			struct import_spans *sp, struct import_error *err);

/*
 * Results in running text (import_text.c), for the kinds that are lines
 * of a mail: dbench and read latency.  The text is read as one stream of
 * tokens (quote marks dropped anywhere, as a re-flowed mail has them), so
 * a result reads the same on its own line, wrapped over several, or in
 * a paragraph an archive made of the whole mail.
 */
struct itext;

struct itext_ops {
	const char *name;	/* "dbench": "no dbench results found" */
	enum import_format fmt;
	void (*init)(struct itext *x);		/* priv; NULL: none */
	/*
	 * A result of this kind at t, lx just after t; lead is the token
	 * before t when no result took it, else NULL.  Returns 0 when none
	 * starts there (lx unchanged), 1 when one was read: lx is after
	 * its last token, and *from (t->p on entry) is lead->p when the
	 * lead names its kernel.  -1 with err set when it is malformed.
	 */
	int (*at)(struct itext *x, struct ilex *lx, const struct itok *t,
		  const struct itok *lead, const char **from,
		  struct import_error *err);
	/* After the last token (NULL: nothing to do); 0 or -1. */
	int (*end)(struct itext *x, struct import_error *err);
	void (*release)(struct itext *x);	/* priv; NULL: none */
};

/* One kind being read: its results, where they are, its own state. */
struct itext {
	const struct itext_ops *ops;
	const char *kernel;	/* for results whose text names none */
	struct iacc acc;
	struct import_spans sp;		/* one span per result read */
	void *priv;
};

extern const struct itext_ops itext_dbench, itext_readlat;

void itext_init(struct itext *x, const struct itext_ops *ops,
		const char *kernel);
void itext_release(struct itext *x);
/*
 * Read the results of the kinds x[0..n) in buf, in one pass: at each
 * token no result took, each kind in turn is asked whether one of its
 * results starts there, so a token is read by one kind at most and the
 * first malformed result in the text is the one reported.  0, or -1 with
 * err set (each x->acc then holds what was read: release it).  Results
 * are not checked for duplicates.
 */
int itext_read(const char *buf, size_t len, struct itext *x, size_t n,
	       struct import_error *err);
/* A text importer of one kind: import_text's contract. */
int itext_import(const struct itext_ops *ops, const char *buf, size_t len,
		 const char *kernel, struct result_set *out,
		 struct import_error *err);

/*
 * Reading one result's fields: where it starts and the line of the last
 * token it took.  A result that starts its line goes on over a line
 * break only while the tokens fit; a token that does not fit on a later
 * line means its line ended early, "missing" on the result's line, as a
 * line-by-line reader would say.
 */
struct irec {
	struct ilex *lx;
	int line;	/* of its first token */
	int bol;	/* its first token starts a line */
	int last;	/* line of the last token taken */
};

/* first: the result's first token; cur: the last one taken (lx after). */
void irec_begin(struct irec *r, struct ilex *lx, const struct itok *first,
		const struct itok *cur);
/* The next token, not taken: 1, or 0 at the end of the input. */
int irec_peek(const struct irec *r, struct itok *t);
void irec_take(struct irec *r);
/* Take the next token when it is word: 1, else 0 (nothing taken). */
int irec_take_word(struct irec *r, const char *word);
/*
 * Take a number for field (one trailing character of strip allowed):
 * 0, or -1 with err ("missing", "not a number 'x'").
 */
int irec_num(struct irec *r, const char *field, const char *strip,
	     double *v, struct import_error *err);
/* Take word for field: 0, or -1 with err as irec_unfit. */
int irec_word(struct irec *r, const char *field, const char *word,
	      struct import_error *err);
/* The next token is not expected: -1 ("missing: expected 'E'", or
 * "expected 'E', found 'x'"). */
int irec_unfit(const struct irec *r, const char *field,
	       const char *expected, struct import_error *err);

/* The k-th token after lx's position (0: the next), lx unchanged: 1, or
 * 0 when the buffer ends first. */
int ilex_peek(const struct ilex *lx, size_t k, struct itok *t);
int itok_prefix(const struct itok *t, const char *prefix);
/*
 * The kernel identifier in front of a result at t: lead, when it is a
 * valid identifier (a trailing ':' dropped) that holds a digit or starts
 * t's line.  0 with id filled in, -1 when lead (may be NULL) is none.
 */
int itok_lead_kernel(const struct itok *lead, const struct itok *t,
		     char *id, size_t len);

/* import_mail.c: every kind of a mail (see import_text_report). */
int import_mail(const char *buf, size_t len, const char *kernel,
		struct result_set *out, struct import_report *rep,
		struct import_error *err);
/*
 * The kinds a text holds, as a mask of 1 << format (tiobench: whether it
 * has tables); -1 when a dbench or read latency result in it is
 * malformed (import_mail then says which).
 */
int import_mail_kinds(const char *buf, size_t len, int tiobench);

/* The kernel for results whose text names none: kernel, else out->kernel. */
const char *import_default_kernel(const char *kernel,
				  const struct result_set *out);

#endif
