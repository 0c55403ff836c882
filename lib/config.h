/* SPDX-License-Identifier: MIT */
/*
 * config: klab's configuration file, an INI-like text read by klabd.
 *
 *     listen = 127.0.0.1:8080
 *     db = /var/lib/klab/klab.db
 *     [rig scsi0]
 *     kind = qemu
 *     profile = scsi
 *
 * '#' starts a comment; keys before any section belong to section "".
 * Errors name the file and line: "klabd.conf:12: expected 'key = value'".
 */
#ifndef KLAB_CONFIG_H
#define KLAB_CONFIG_H

#include <stddef.h>

struct config_entry {
	char *section;	/* "" or "rig scsi0" */
	char *key, *value;
	int line;
};

struct config {
	char *path;
	struct config_entry *v;
	size_t n, alloc;
};

void config_init(struct config *c);
void config_release(struct config *c);
/* Parse text (path only used in messages).  0, or -1 with err set. */
int config_parse(struct config *c, const char *path, const char *text,
		 size_t len, char *err, size_t errlen);
int config_load(struct config *c, const char *path, char *err,
		size_t errlen);
/* Last value of key in section, or NULL. */
const char *config_get(const struct config *c, const char *section,
		       const char *key);
/* Parse a size with optional K/M/G suffix (binary). 0 or -1. */
int config_parse_size(const char *s, long long *out);
/* Parse a whole decimal integer in [min, max]. 0 or -1. */
int parse_long(const char *s, long min, long max, long *out);

#endif
