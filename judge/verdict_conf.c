// SPDX-License-Identifier: MIT
/*
 * The verdict defaults klabd's configuration sets: user floors that every
 * comparison starts from (the compare page, /api/compare, comparison runs
 * and submissions all begin with vd_policy_default()), before the floors
 * a request names, which come later and so win.
 *
 *   verdict_floor = [SUITE/]GLOB:PCT, [SUITE/]GLOB:PCT ...   (global)
 *   [suite NAME]
 *   floor = GLOB:PCT, GLOB:PCT ...                  (that suite's floors)
 *
 * Set once at startup, before any thread reads them.
 */
#include "judge/verdict.h"

#include <stdio.h>
#include <string.h>

#include "lib/config.h"

static struct vd_floor defaults[VD_MAX_DEFAULT_FLOORS];
static size_t ndefaults;

void vd_defaults_reset(void)
{
	ndefaults = 0;
}

size_t vd_defaults_floors(const struct vd_floor **out)
{
	*out = defaults;
	return ndefaults;
}

/* One spec of a list: "GLOB:PCT" or "SUITE/GLOB:PCT" (suite forces the
 * suite when not NULL). */
static int defaults_add_one(const char *suite, const char *spec, size_t len,
			    char *err, size_t errlen)
{
	struct vd_policy one;
	char buf[256];

	memset(&one, 0, sizeof(one));
	if (len >= sizeof(buf) || (suite && memchr(spec, '/', len))) {
		snprintf(err, errlen, "invalid floor '%.*s'", (int)len, spec);
		return -1;
	}
	if (suite)
		snprintf(buf, sizeof(buf), "%s/%.*s", suite, (int)len, spec);
	else
		snprintf(buf, sizeof(buf), "%.*s", (int)len, spec);
	if (vd_policy_add_floor(&one, buf)) {
		snprintf(err, errlen, "invalid floor '%.*s' (want %sMETRIC-"
			 "GLOB:PERCENT)", (int)len, spec,
			 suite ? "" : "[SUITE/]");
		return -1;
	}
	if (ndefaults == VD_MAX_DEFAULT_FLOORS) {
		snprintf(err, errlen, "too many floors (at most %d in all)",
			 VD_MAX_DEFAULT_FLOORS);
		return -1;
	}
	defaults[ndefaults++] = one.floors[0];
	return 0;
}

int vd_defaults_add_floors(const char *suite, const char *list, char *err,
			   size_t errlen)
{
	const char *p = list;

	for (;;) {
		size_t len;

		p += strspn(p, ", \t");
		if (!*p)
			return 0;
		len = strcspn(p, ", \t");
		if (defaults_add_one(suite, p, len, err, errlen))
			return -1;
		p += len;
	}
}

/* The line of the last "key" of section (the one config_get gives). */
static int key_line(const struct config *c, const char *section,
		    const char *key)
{
	size_t i;
	int line = 0;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].section, section) &&
		    !strcmp(c->v[i].key, key))
			line = c->v[i].line;
	return line;
}

int vd_defaults_from_config(const struct config *c, char *err,
			    size_t errlen)
{
	char msg[300];
	const char *v;
	size_t i;

	vd_defaults_reset();
	v = config_get(c, "", "verdict_floor");
	if (v && vd_defaults_add_floors(NULL, v, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s:%d: verdict_floor: %s", c->path,
			 key_line(c, "", "verdict_floor"), msg);
		return -1;
	}
	for (i = 0; i < c->nsec; i++) {
		const char *sec = c->sec[i].section;
		size_t j;

		for (j = 0; j < i && strcmp(c->sec[j].section, sec); j++)
			;
		if (strncmp(sec, "suite ", 6) || j < i)	/* once a section */
			continue;
		v = config_get(c, sec, "floor");
		if (v && vd_defaults_add_floors(sec + 6, v, msg, sizeof(msg))) {
			snprintf(err, errlen, "%s:%d: [%s] floor: %s", c->path,
				 key_line(c, sec, "floor"), sec, msg);
			return -1;
		}
	}
	return 0;
}
