/* SPDX-License-Identifier: MIT */
/*
 * config: klab's key = value text, read by klabd (its configuration file)
 * and by klabd from the kernels/ scripts (their key=value records).
 *
 *     listen = 127.0.0.1:8080
 *     db = /var/lib/klab/klab.db
 *     # a comment
 *     [rig scsi0]
 *     kind = qemu
 *     token = abc#def
 *
 * The rules, for both readers (config_line() is their one home):
 *  - a line is split at its first '='; key and value are trimmed of
 *    surrounding white space, and the key must not be empty;
 *  - a line whose first non-blank character is '#' is a comment (as in
 *    systemd's unit files); '#' anywhere else is part of the value;
 *  - blank lines are ignored; "[NAME]" starts a section; keys before any
 *    section belong to section "";
 *  - the last of repeated keys wins.
 * The configuration file is strict: any other line is an error, and
 * config_check() refuses keys and sections that the schema does not list.
 * Records are lenient: lines that are not key=value are skipped.
 * Errors name the file and line: "klabd.conf:12: expected 'key = value'".
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
	CONFIG_BAD,		/* none of these */
};

/*
 * Split one line (len bytes, no newline) by the rules above.  *key and
 * *value are heap copies for CONFIG_PAIR (*key only for CONFIG_SECTION),
 * NULL otherwise.
 */
enum config_line_kind config_line(const char *p, size_t len, char **key,
				  char **value);

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
