/* SPDX-License-Identifier: MIT */
/*
 * upload: an agent's results upload, POST /api/agent/jobs/ID/results
 * (docs/AGENT.md, step 6), read once.  The body is parsed into one JSON
 * document, and everything klabd checks, stores and acts on is taken
 * from it: the results for the job's kernel, each repetition's, the raw
 * outputs ("raw": {name: text}, borrowed from the document) and the text
 * kept as the run's raw output "results.json" (the upload without its
 * "raw" member, whose texts are stored under their own names).  No HTTP
 * here: a fault is UPLOAD_INVALID (the request is wrong) or
 * UPLOAD_FOREIGN (results for another kernel than the job's), with the
 * message the API answers.
 */
#ifndef KLAB_UPLOAD_H
#define KLAB_UPLOAD_H

#include <stddef.h>

#include "results.h"

struct json_t;

enum upload_fault {
	UPLOAD_OK = 0,
	UPLOAD_INVALID,		/* not a klab-results/1 upload: say why */
	UPLOAD_FOREIGN,		/* results of a kernel the job is not for */
};

/* A raw output the agent attached: name and text point into doc. */
struct upload_raw {
	const char *name;
	const char *text;
	size_t len;
};

/* At most this many repetitions ("repetitions": [DOC, ...]). */
#define UPLOAD_MAX_REPS 1000

struct upload {
	struct json_t *doc;	/* the body, parsed once */
	struct result_set rs;	/* its results (the repetitions' mean) */
	struct result_set *reps;	/* repetition i + 1 is reps[i] */
	size_t nreps;
	struct upload_raw *raw;	/* in the document's order */
	size_t nraw;
	const char *stored;	/* the text of "results.json": the body, or */
	size_t stored_len;
	char *stored_own;	/* the upload without "raw", when it had one */
};

/*
 * Read body, the upload for job (which runs kernel), into u.  The order
 * of the checks is the API's: the body a JSON object (else the document's
 * own fault below), "raw" an object of well named strings, "repetitions"
 * an array of at most UPLOAD_MAX_REPS klab-results/1 documents, the body
 * a klab-results/1 document, every result of kernel.  UPLOAD_OK, or the
 * fault with err saying it ("field 'raw.x': expected a string", "job 7
 * results: field 'schema': missing", "results for kernel 'a', job 7 is
 * for 'b'"); u is filled either way, and upload_release frees it.
 */
enum upload_fault upload_parse(struct upload *u, const char *body,
			       size_t len, long long job, const char *kernel,
			       char *err, size_t errlen);
void upload_release(struct upload *u);
/* The text of the raw output called name, or NULL. */
const struct upload_raw *upload_raw_find(const struct upload *u,
					 const char *name);

#endif
