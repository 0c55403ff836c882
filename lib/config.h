/* SPDX-License-Identifier: MIT */
/*
 * config: klab's key = value text, its one reader.  Read by klabd (its
 * configuration file), by klabd from the kernels/ scripts (their
 * key=value records) and by klab-run and klabd from the suite files
 * (workloads/suite.c).
 *
 *     listen = 127.0.0.1:8080
 *     db = /var/lib/klab/klab.db
 *     # a comment
 *     [rig scsi0]
 *     kind = qemu
 *     token = abc#def
 *
 * The rules, for every reader (config_line() is their one home, and
 * struct config_reader their one loop over the lines):
 *  - lines end at '\n', the last one may lack it;
 *  - a line is split at its first '='; key and value are trimmed of
 *    surrounding white space (isspace: a '\r' before the newline too),
 *    and the key must not be empty;
 *  - a line whose first non-blank character is '#' is a comment (as in
 *    systemd's unit files); '#' anywhere else is part of the value;
 *  - blank lines are ignored; "[NAME]" starts a section; keys before any
 *    section belong to section "";
 *  - a line holding a NUL byte is none of these;
 *  - the last of repeated keys wins.
 * The configuration file is strict: any other line is an error, and
 * config_check() refuses keys and sections that the schema does not list.
 * Records are lenient: lines that are not key=value are skipped.
 * Suite files are strict and narrower (workloads/suite.h): no sections,
 * each key once, lines of at most 4094 bytes.
 * Errors name the file and line: "klabd.conf:12: expected 'key = value'";
 * a suite's as "'FILE' line 12: expected 'key = value'".
 */
#ifndef KLAB_CONFIG_H
#define KLAB_CONFIG_H

#include <stddef.h>

struct config_entry {
	char *section;	/* "" or "rig scsi0" */
	char *key, *value;	/* key and value NULL: a section header */
	int line;
};

struct config {
	char *path;
	struct config_entry *v;	/* keys and values, in file order */
	size_t n, alloc;
	struct config_entry *sec;	/* section headers, in file order */
	size_t nsec, sec_alloc;
};

/*
 * A key the configuration may hold.  section is "" (the global part), a
 * section's exact name ("http"), or a kind of named section written with
 * " *" ("rig *" for [rig NAME]).  A schema is an array ending in a row
 * of NULLs.
 */
struct config_key {
	const char *section;
	const char *key;
};

enum config_line_kind {
	CONFIG_BLANK,		/* empty or comment */
	CONFIG_SECTION,		/* [name]: *key = trimmed name */
	CONFIG_PAIR,		/* key = value */
	CONFIG_NUL,		/* a line holding a NUL byte */
	CONFIG_BAD,		/* none of these */
};

/*
 * Split one line (len bytes, no newline) by the rules above.  *key and
 * *value are heap copies for CONFIG_PAIR (*key only for CONFIG_SECTION),
 * NULL otherwise.
 */
enum config_line_kind config_line(const char *p, size_t len, char **key,
				  char **value);

/*
 * The lines of key = value text, one after another, each split by
 * config_line(): the one loop of config_parse(), config_record_get() and
 * suite_load().  After a config_reader_next() that returned 1, line is
 * that line's number (from 1), p and n the line without its newline.
 */
struct config_reader {
	const char *text;
	size_t len, off;
	int line;
	const char *p;
	size_t n;
};

void config_reader_init(struct config_reader *r, const char *text,
			size_t len);
/* The next line: 1 with *kind, *key and *value as config_line() gives
 * them (the caller frees *key and *value), or 0 at the end of the text
 * (*key and *value NULL). */
int config_reader_next(struct config_reader *r,
		       enum config_line_kind *kind, char **key, char **value);

void config_init(struct config *c);
void config_release(struct config *c);
/* Parse text (path only used in messages).  0, or -1 with err set. */
int config_parse(struct config *c, const char *path, const char *text,
		 size_t len, char *err, size_t errlen);
int config_load(struct config *c, const char *path, char *err,
		size_t errlen);
/* Every section and key of c must be in schema: 0, or -1 with err
 * "FILE:LINE: unknown key 'k' in section '[rig a]'". */
int config_check(const struct config *c, const struct config_key *schema,
		 char *err, size_t errlen);
/* Last value of key in section, or NULL. */
const char *config_get(const struct config *c, const char *section,
		       const char *key);
/* Value of key in a key=value record (the last one wins): a heap copy,
 * "" when absent. */
char *config_record_get(const char *rec, const char *key);
/* Parse a size with optional K/M/G suffix (binary). 0 or -1. */
int config_parse_size(const char *s, long long *out);
/* Parse a whole decimal integer in [min, max]. 0 or -1. */
int parse_long(const char *s, long min, long max, long *out);
/* Parse a whole finite decimal number ("0.05", "1e-3"). 0 or -1. */
int parse_double(const char *s, double *out);

#endif
