// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what klabd parses of an agent's upload,
 * POST /api/agent/jobs/ID/results (docs/AGENT.md, step 6), as
 * agent_results() in http/api_agent.c takes it: upload_parse (lib/upload.h:
 * the body parsed once; its "raw" names, its "repetitions" and the
 * document itself read by import_klab_doc for the job's kernel), and the
 * "machine" member into the rig's configuration text (rig_conf_text for
 * a remote rig); and the document's text by import_klab, as `klab import`
 * sends it.  Besides the sanitizers it asserts: a refused upload names
 * its cause, a failed import too and leaves no results, a stored result
 * has a metric and a finite value, every raw output kept has a valid
 * name, the text kept as "results.json" is the upload without "raw", and
 * the configuration text is canonical (sorted "key=value" lines, no line
 * without '=', every key once), so that the run's rigconf hash is well
 * defined.
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
#include "lib/upload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void results_check(const struct result_set *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (!rs->v[i].metric || !rs->v[i].metric[0] ||
		    !isfinite(rs->v[i].value))
			abort();
}

static void result_import_check(const char *buf, size_t len)
{
	struct import_error ie;
	struct result_set rs;

	memset(&ie, 0, sizeof(ie));
	result_set_init(&rs);
	if (import_klab(buf, len, "6.1.0-fuzz", &rs, &ie) < 0) {
		if (rs.n || !ie.msg[0] || !memchr(ie.msg, 0, sizeof(ie.msg)))
			abort();
	} else {
		results_check(&rs);
	}
	result_set_release(&rs);
}

/* "results.json" as kept: the body, or a document without "raw". */
static void stored_check(const struct upload *u, const char *buf,
			 size_t len)
{
	json_t *doc;

	if (!u->stored)
		abort();
	if (!u->stored_own) {
		if (u->stored != buf || u->stored_len != len)
			abort();
		return;
	}
	doc = json_loadb(u->stored, u->stored_len, 0, NULL);
	if (!json_is_object(doc) || json_object_get(doc, "raw"))
		abort();
	json_decref(doc);
}

static void upload_check(const char *buf, size_t len)
{
	struct upload u;
	char err[600] = "";
	size_t i;

	if (upload_parse(&u, buf, len, 1, "6.1.0-fuzz", err, sizeof(err))) {
		if (!err[0])
			abort();
		upload_release(&u);
		return;
	}
	results_check(&u.rs);
	for (i = 0; i < u.nreps; i++)
		results_check(&u.reps[i]);
	for (i = 0; i < u.nraw; i++)
		if (ident_checks(IDENT_RAW, u.raw[i].name, NULL, 0) ||
		    !u.raw[i].text)
			abort();
	stored_check(&u, buf, len);
	upload_release(&u);
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

	upload_check((const char *)data, size);
	if (json_is_object(doc))
		result_machine_check(json_object_get(doc, "machine"));
	result_import_check((const char *)data, size);
	json_decref(doc);
	return 0;
}
