// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what klabd parses of an agent's upload,
 * POST /api/agent/jobs/ID/results (docs/AGENT.md, step 6), in the order
 * agent_results() in http/api_agent.c takes it: the "raw" names
 * (ident_checks IDENT_RAW), each "repetitions" element re-serialised and
 * read by import_klab, the document itself by import_klab for the job's
 * kernel, and the "machine" member into the rig's configuration text
 * (rig_conf_text for a remote rig).  Besides the sanitizers it asserts:
 * a failed import leaves no results and names its cause, a stored result
 * has a metric and a finite value, and the configuration text is
 * canonical (sorted "key=value" lines, no line without '=', every key
 * once), so that the run's rigconf hash is well defined.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "klabd/klabd.h"
#include "lab/rig.h"
#include "lab/rig_conf.h"
#include "lib/ident.h"
#include "lib/import.h"
#include "lib/rigconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void result_import_check(const char *buf, size_t len)
{
	struct import_error ie;
	struct result_set rs;
	size_t i;

	memset(&ie, 0, sizeof(ie));
	result_set_init(&rs);
	if (import_klab(buf, len, "6.1.0-fuzz", &rs, &ie) < 0) {
		if (rs.n || !ie.msg[0] || !memchr(ie.msg, 0, sizeof(ie.msg)))
			abort();
	} else {
		for (i = 0; i < rs.n; i++)
			if (!rs.v[i].metric || !rs.v[i].metric[0] ||
			    !isfinite(rs.v[i].value))
				abort();
	}
	result_set_release(&rs);
}

static void result_reps_check(json_t *arr)
{
	json_t *e;
	size_t i;
	char *text;

	if (!json_is_array(arr) || json_array_size(arr) > 1000)
		return;
	json_array_foreach(arr, i, e) {
		text = json_dumps(e, JSON_COMPACT);
		if (text)
			result_import_check(text, strlen(text));
		free(text);
	}
}

static void result_raw_check(json_t *raw)
{
	const char *name;
	char why[300];
	json_t *v;

	json_object_foreach(raw, name, v) {
		why[0] = '\0';
		if (ident_checks(IDENT_RAW, name, why, sizeof(why)) && !why[0])
			abort();
	}
}

/* Every line "key=value", keys strictly ascending. */
static void result_conf_check(const char *canon)
{
	const char *p = canon, *prev = NULL, *eq, *nl;
	size_t prevlen = 0, klen;

	while (*p) {
		nl = strchr(p, '\n');
		eq = strchr(p, '=');
		if (!nl || !eq || eq > nl)
			abort();
		klen = (size_t)(eq - p);
		if (prev &&
		    (strncmp(prev, p, klen < prevlen ? klen : prevlen) > 0 ||
		     (klen == prevlen && !strncmp(prev, p, klen))))
			abort();
		prev = p;
		prevlen = klen;
		p = nl + 1;
	}
}

static void result_machine_check(json_t *machine)
{
	static struct klabd d;
	static struct rig g;
	static int once;
	char *canon;

	if (!once) {
		config_init(&d.cfg);
		g.name = "fuzz0";
		g.kind = "remote";
		once = 1;
	}
	canon = rig_conf_text(&d, &g, machine);
	if (!canon)
		abort();
	result_conf_check(canon);
	free(canon);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);

	if (json_is_object(doc)) {
		result_raw_check(json_object_get(doc, "raw"));
		result_reps_check(json_object_get(doc, "repetitions"));
		result_machine_check(json_object_get(doc, "machine"));
	}
	result_import_check((const char *)data, size);
	json_decref(doc);
	return 0;
}
