// SPDX-License-Identifier: MIT
/*
 * import_text: results that are lines of running text (dbench, read
 * latency), read as a stream of tokens rather than lines.  A mail archive
 * that re-flowed a mail into one paragraph, or a client that wrapped it
 * at 72 columns, moves the line breaks but keeps the tokens in order, so
 * a result is found where its first words are ("Throughput V", "reads:
 * V", "read latency min") and ends where its own values end, wherever the
 * line breaks fall.  Each kind says where its results start and reads
 * them (struct itext_ops); itext_read() walks the tokens once for all
 * kinds, so no token is read twice and the first malformed result in the
 * text is the one reported.  struct irec reads one result's fields with
 * the errors a line-by-line reader would give.
 */
#include "import_priv.h"

#include <stdlib.h>
#include <string.h>

int ilex_peek(const struct ilex *lx, size_t k, struct itok *t)
{
	struct ilex p = *lx;
	size_t i;

	for (i = 0; i <= k; i++)
		if (!ilex_next(&p, t))
			return 0;
	return 1;
}

int itok_prefix(const struct itok *t, const char *prefix)
{
	size_t n = strlen(prefix);

	return t->n >= n && !memcmp(t->p, prefix, n);
}

static int has_digit(const struct itok *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->p[i] >= '0' && t->p[i] <= '9')
			return 1;
	return 0;
}

/*
 * A word of prose before a result ("for scale: Throughput ...") is no
 * kernel: in running text the identifier must hold a digit, as every
 * kernel version does; one that starts the result's line is taken as a
 * line-by-line reader took it.
 */
int itok_lead_kernel(const struct itok *lead, const struct itok *t,
		     char *id, size_t len)
{
	if (!lead)
		return -1;
	if (!has_digit(lead) && !(lead->bol && lead->line == t->line))
		return -1;
	return itok_kernel(lead, id, len);
}

void irec_begin(struct irec *r, struct ilex *lx, const struct itok *first,
		const struct itok *cur)
{
	r->lx = lx;
	r->line = first->line;
	r->bol = first->bol;
	r->last = cur->line;
}

int irec_peek(const struct irec *r, struct itok *t)
{
	return ilex_peek(r->lx, 0, t);
}

void irec_take(struct irec *r)
{
	struct itok t;

	if (ilex_next(r->lx, &t))
		r->last = t.line;
}

int irec_take_word(struct irec *r, const char *word)
{
	struct itok t;

	if (!irec_peek(r, &t) || !itok_eq(&t, word))
		return 0;
	irec_take(r);
	return 1;
}

/* The result ended before t (NULL: the input ended). */
static int irec_ended(const struct irec *r, const struct itok *t)
{
	return !t || (r->bol && t->line != r->last);
}

int irec_unfit(const struct irec *r, const char *field,
	       const char *expected, struct import_error *err)
{
	struct itok t;
	int have = irec_peek(r, &t);
	char show[64];

	if (irec_ended(r, have ? &t : NULL))
		return import_fail(err, r->line, field,
				   "missing: expected '%s'", expected);
	itok_show(&t, show, sizeof(show));
	return import_fail(err, t.line, field, "expected '%s', found '%s'",
			   expected, show);
}

int irec_word(struct irec *r, const char *field, const char *word,
	      struct import_error *err)
{
	if (irec_take_word(r, word))
		return 0;
	return irec_unfit(r, field, word, err);
}

int irec_num(struct irec *r, const char *field, const char *strip,
	     double *v, struct import_error *err)
{
	struct itok t;
	int have = irec_peek(r, &t);
	char show[64];
	size_t n;

	if (have) {
		n = t.n;
		if (n > 1 && t.p[n - 1] && strchr(strip, t.p[n - 1]))
			n--;
		if (!num_parse(t.p, n, v)) {
			irec_take(r);
			return 0;
		}
	}
	if (irec_ended(r, have ? &t : NULL))
		return import_fail(err, r->line, field, "missing");
	itok_show(&t, show, sizeof(show));
	return import_fail(err, t.line, field, "not a number '%s'", show);
}

void itext_init(struct itext *x, const struct itext_ops *ops,
		const char *kernel)
{
	memset(x, 0, sizeof(*x));
	x->ops = ops;
	x->kernel = kernel;
	iacc_init(&x->acc);
	if (ops->init)
		ops->init(x);
}

void itext_release(struct itext *x)
{
	if (x->ops->release)
		x->ops->release(x);
	iacc_release(&x->acc);
	free(x->sp.v);
	memset(&x->sp, 0, sizeof(x->sp));
}

/* Whether a result of one of the kinds starts at t: 1 read, 0, -1. */
static int itext_at(const char *buf, struct ilex *lx, const struct itok *t,
		    const struct itok *lead, struct itext *x, size_t n,
		    struct import_error *err)
{
	const char *from;
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		from = t->p;
		r = x[i].ops->at(&x[i], lx, t, lead, &from, err);
		if (r > 0)
			import_spans_add(&x[i].sp, (size_t)(from - buf),
					 lx->pos);
		if (r)
			return r;
	}
	return 0;
}

int itext_read(const char *buf, size_t len, struct itext *x, size_t n,
	       struct import_error *err)
{
	struct ilex lx;
	struct itok t, lead;
	int r, have_lead = 0;
	size_t i;

	ilex_init(&lx, buf, len, 1);
	lx.drop_gt = 1;
	while (ilex_next(&lx, &t)) {
		r = itext_at(buf, &lx, &t, have_lead ? &lead : NULL, x, n,
			     err);
		if (r < 0)
			return -1;
		have_lead = !r;
		lead = t;
	}
	for (i = 0; i < n; i++)
		if (x[i].ops->end && x[i].ops->end(&x[i], err))
			return -1;
	return 0;
}

int itext_import(const struct itext_ops *ops, const char *buf, size_t len,
		 const char *kernel, struct result_set *out,
		 struct import_error *err)
{
	struct itext x;
	int n = -1;

	itext_init(&x, ops, import_default_kernel(kernel, out));
	if (!itext_read(buf, len, &x, 1, err))
		n = iacc_finish(&x.acc, out, err, ops->name);
	itext_release(&x);
	return n;
}
