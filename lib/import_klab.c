// SPDX-License-Identifier: MIT
/*
 * import_klab: the "klab-results/1" JSON document that klab-run and the
 * agent upload (docs/RESULTS.md).  The document's own kernel, rig, suite,
 * format, incomplete flag and error carry over to out; the kernel argument
 * stands in when the document names no kernel.  A kernel with two results
 * for one metric is refused, as in every importer.
 */
#include "import.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_priv.h"

static void carry(char **dst, const char *src)
{
	if (src)
		result_set_setstr(dst, src);
}

int import_klab_doc(const json_t *doc, const char *kernel,
		    struct result_set *out, struct import_error *err)
{
	struct iacc acc;
	json_t *d, *k;
	size_t i, j;
	char field[48];

	if (!json_is_object(doc))
		return import_fail(err, 1, "", "JSON document is not an "
				   "object");
	/* a shallow copy: the kernel stands in without touching doc */
	d = json_copy((json_t *)doc);
	if (!d)
		abort();
	k = json_object_get(d, "kernel");
	if ((!k || json_is_null(k)) && kernel)
		json_object_set_new(d, "kernel", json_string(kernel));
	iacc_init(&acc);
	if (result_set_from_json(&acc.rs, d, err))
		goto out_fail;
	if (iacc_find_dup(&acc, &i, &j)) {
		snprintf(field, sizeof(field), "results[%zu].metric", j);
		import_fail(err, 0, field, "kernel '%s' has a second '%s' "
			    "result (first in results[%zu])",
			    acc.rs.v[j].kernel, acc.rs.v[j].metric, i);
		goto out_fail;
	}
	json_decref(d);
	carry(&out->kernel, acc.rs.kernel);
	carry(&out->rig, acc.rs.rig);
	carry(&out->suite, acc.rs.suite);
	carry(&out->error, acc.rs.error);
	result_set_setstr(&out->format, acc.rs.format ? acc.rs.format
						      : "klab");
	out->incomplete |= acc.rs.incomplete;
	result_set_hist_take(out, &acc.rs);
	result_set_steps_take(out, &acc.rs, 0);
	return iacc_commit(&acc, out);

out_fail:
	json_decref(d);
	iacc_release(&acc);
	return -1;
}

int import_klab(const char *buf, size_t len, const char *kernel,
		struct result_set *out, struct import_error *err)
{
	json_t *doc = import_json_load(buf, len, 0, err);
	int rc;

	if (!doc)
		return -1;
	rc = import_klab_doc(doc, kernel, out, err);
	json_decref(doc);
	return rc;
}
