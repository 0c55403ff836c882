// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for agent/cmdline.c: the agent's reader of the kernel
 * command line (klab.url, klab.rig, klab.token, klab.job, klab.release)
 * and the writer of the next kernel's command line.  The input is the
 * command line, optionally followed by a NUL and a kernel release.
 * Besides the sanitizers' checks it asserts the round trip the lab
 * relies on: whatever base command line a job brings, the line written
 * for the job's kernel parses, and gives back exactly the url, rig,
 * token, job and release the agent put there.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* The line for the job's kernel must read back as written. */
static void cmdline_check_for_job(const char *base,
				  const struct agent_config *cfg, long job,
				  const char *release)
{
	struct strbuf sb = STRBUF_INIT;
	struct agent_cmdline c;
	char err[256];

	sb_init(&sb);
	agent_cmdline_for_job(&sb, base, cfg, job, release);
	if (agent_cmdline_parse(sb.buf, &c, err, sizeof(err)))
		abort();
	if (!same(c.url, cfg->url) || !same(c.rig, cfg->rig) ||
	    !same(c.token, cfg->token) || c.job != job ||
	    !same(c.release, release))
		abort();
	agent_cmdline_release(&c);
	sb_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_config cfg;
	struct agent_cmdline c;
	const char *release = "6.1.0-fuzz";
	char *text, *rel;
	char err[256];
	long job = 7;

	text = malloc(size + 2);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = text[size + 1] = '\0';
	rel = text + strlen(text) + 1;
	/* a kernel command line cannot carry a '"' inside a value */
	if ((size_t)(rel - text) <= size && !strchr(rel, '"'))
		release = rel;
	memset(&cfg, 0, sizeof(cfg));
	cfg.url = "http://10.0.2.2:8080";
	cfg.rig = "fuzz0";
	cfg.token = "0123456789abcdef";
	err[0] = '\0';
	if (agent_cmdline_parse(text, &c, err, sizeof(err))) {
		if (!err[0] || c.url || c.rig || c.token || c.release)
			abort();
		cmdline_check_for_job(text, &cfg, job, release);
	} else {
		if (c.url)
			cfg.url = c.url;
		if (c.rig)
			cfg.rig = c.rig;
		if (c.token)
			cfg.token = c.token;
		if (c.job < 0)
			abort();
		job = c.job > 0 ? c.job : job;
		cmdline_check_for_job(text, &cfg, job, release);
		agent_cmdline_release(&c);
	}
	free(text);
	return 0;
}
