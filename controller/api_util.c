// SPDX-License-Identifier: MIT
/*
 * What every JSON handler of klabd shares: writing a JSON answer and
 * reading a JSON request body, with errors that say what was wrong.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klabd.h"

int api_reply(struct web_response *r, int status, json_t *doc)
{
	char *s = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII);

	json_decref(doc);
	if (!s)
		return web_error_json(r, 500, "cannot encode json");
	r->status = status;
	r->content_type = "application/json";
	sb_reset(&r->body);
	sb_adds(&r->body, s);
	sb_addc(&r->body, '\n');
	free(s);
	return status;
}

json_t *api_body(struct req *rq, struct web_response *r, int strict)
{
	json_error_t je;
	json_t *doc;
	char err[300];

	if (strict && strcmp(rq->content_type, "application/json")) {
		web_error_json(r, 415, "send application/json");
		return NULL;
	}
	doc = json_loadb(rq->body, rq->body_len, 0, &je);
	if (!json_is_object(doc)) {
		snprintf(err, sizeof(err), "invalid json at line %d: %s",
			 je.line, doc ? "expected an object" : je.text);
		json_decref(doc);
		web_error_json(r, 400, err);
		return NULL;
	}
	return doc;
}
