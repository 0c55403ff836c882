// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for lib/config.c, the reader of klabd's configuration
 * file, through its public entry config_parse (the text need not end in
 * a NUL).  Besides the sanitizers' checks it asserts the reader's
 * contract: a failure names the file in its message, a success yields
 * entries that config_get finds again, and every value survives the
 * number parsers (config_parse_size, parse_long) that klabd applies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void config_check_entries(const struct config *c)
{
	long long sz;
	long l;
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct config_entry *e = &c->v[i];

		if (!e->section || !e->key || !e->value || !e->key[0] ||
		    e->line < 1 || !config_get(c, e->section, e->key))
			abort();
		if (!config_parse_size(e->value, &sz) && sz < 0)
			abort();
		if (!parse_long(e->value, -1000, 1000, &l) &&
		    (l < -1000 || l > 1000))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char err[512];
	char *text;

	/* exact size, no NUL: the reader must honour len */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	config_init(&c);
	err[0] = '\0';
	if (config_parse(&c, "fuzz.conf", text, size, err, sizeof(err))) {
		if (strncmp(err, "fuzz.conf", 9) ||
		    !memchr(err, 0, sizeof(err)))
			abort();
	} else {
		config_check_entries(&c);
	}
	config_release(&c);
	free(text);
	return 0;
}
