// SPDX-License-Identifier: MIT
/*
 * git: git run on a repository, see git.h.
 */
#include <stdio.h>
#include <string.h>

#include "lib/git.h"
#include "lib/proc.h"

int git_run(const char *dir, const char *const *args, struct strbuf *out,
	    char *err, size_t errlen)
{
	struct strbuf eo = STRBUF_INIT, o2 = STRBUF_INIT;
	const char *argv[24] = { "git", "-C", dir };
	struct proc_opts o;
	size_t i;
	char *nl;
	int rc;

	for (i = 0; args[i] && i < 20; i++)
		argv[i + 3] = args[i];
	argv[i + 3] = NULL;
	sb_init(&eo);
	sb_init(&o2);
	if (out)
		sb_reset(out);
	memset(&o, 0, sizeof(o));
	o.out = out ? out : &o2;
	o.errout = &eo;
	o.cap = 1u << 20;
	o.timeout_ms = GIT_TIMEOUT_MS;
	o.grace_ms = 2000;
	rc = proc_run((char *const *)argv, &o, NULL, err, errlen);
	if (rc > 0) {
		while (eo.len && eo.buf[eo.len - 1] == '\n')
			eo.buf[--eo.len] = '\0';
		nl = eo.len ? strrchr(eo.buf, '\n') : NULL;
		snprintf(err, errlen, "git %s: %.300s", args[0],
			 nl ? nl + 1 : eo.len ? eo.buf : "failed");
	}
	sb_release(&eo);
	sb_release(&o2);
	return rc;
}

void git_chomp(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == '\n' ||
			   sb->buf[sb->len - 1] == '\r'))
		sb->buf[--sb->len] = '\0';
}
