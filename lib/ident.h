/* SPDX-License-Identifier: MIT */
/*
 * ident: the one rule for the names klab is given from outside: kernel
 * identifiers, rig, suite, metric and I/O scheduler names, raw output
 * names.  Every path in (import query and files, the JSON API, agent
 * uploads, the database layer) checks names here, so a name that is
 * stored is a name that every page, URL, file name and shell word can
 * carry without escaping.
 *
 * The rule: 1 to IDENT_MAX bytes of [A-Za-z0-9] and "._+-:@~", starting
 * with a letter or digit, not ending with '.', no "..".  Raw output names
 * are paths below an output directory: they may also hold '/' (not first,
 * no "//") and start with any allowed character but '/'.  That covers what
 * the lab uses today: "2.4.22-axboe-2l", "6.1.0-28-cloud-amd64",
 * "6.12.117+deb12-cloud-amd64", "build-0123456789ab",
 * "tiobench.rand_read.lat_max", "tiobench-under-writes".
 *
 * Free text (titles, notes, raw outputs) is not held to it: lib/utf8.h
 * makes such text valid UTF-8.
 */
#ifndef KLAB_IDENT_H
#define KLAB_IDENT_H

#include <stddef.h>

#define IDENT_MAX 128

enum ident_kind {
	IDENT_KERNEL,
	IDENT_RIG,
	IDENT_SUITE,
	IDENT_METRIC,
	IDENT_RAW,		/* name of a raw output, e.g. "results.json" */
	IDENT_TOKEN,		/* name of a user token, e.g. "alice" */
	IDENT_SCHEDULER,	/* an I/O scheduler, e.g. "mq-deadline" */
};

/* "kernel", "rig", ...: how errors name a kind. */
const char *ident_kind_name(enum ident_kind kind);

/*
 * Check the len bytes at s (which may hold a NUL: it is refused) against
 * the rule.  0 when fine; -1 with err (may be NULL) filled in, naming the
 * kind, the value (escaped) and the offending byte's position:
 * "kernel name '<x>' has a character not allowed at byte 1 ('<')".
 */
/*
 * Whether a kernel name is one the lab gives its own builds: "subN-..."
 * (a submission's), "bisN-..." (a bisection step's), "trkN-..." (a tracked
 * git line's head) or "build-" and
 * twelve hex digits (an unnamed build's, by its key).  No request names
 * a kernel so.
 */
int ident_lab_owned(const char *s);
/* 1 when the comma-separated list of names (a track's rigs, a
 * bisection's metrics) holds name, else 0. */
int ident_list_has(const char *list, const char *name);
int ident_check(enum ident_kind kind, const char *s, size_t len, char *err,
		size_t errlen);
/* ident_check() of a NUL-terminated string. */
int ident_checks(enum ident_kind kind, const char *s, char *err,
		 size_t errlen);

/* Make the NUL-terminated s (non-empty) a valid IDENT_RAW name in place:
 * cut to IDENT_MAX bytes, every byte outside the rule becomes '_' (and
 * the second of ".." or "//").  For
 * names that only label things, such as an uploaded file's name. */
void ident_sanitize(char *s);

#endif
