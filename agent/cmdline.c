// SPDX-License-Identifier: MIT
/*
 * The kernel command line as the agent uses it: reading its settings
 * (klab.url, klab.rig, klab.token, and klab.job / klab.release, which the
 * agent itself puts there when it kexecs into a job's kernel), and
 * building the command line of the next kernel.  Words are split the way
 * the kernel splits them: blanks separate, double quotes group and are
 * dropped.  Pure functions, no I/O; see agent.h.
 */
#include "agent/agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMDLINE_BLANKS " \t\n\r"

/* Copy the next word of *p into w (quotes dropped); 0 at the end. */
static int cmdline_next(const char **p, struct strbuf *w)
{
	const char *s = *p;
	int quoted = 0;

	sb_reset(w);
	s += strspn(s, CMDLINE_BLANKS);
	if (!*s)
		return 0;
	for (; *s; s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && strchr(CMDLINE_BLANKS, *s))
			break;
		sb_addc(w, *s);
	}
	*p = s;
	return 1;
}

/* If word is "key=value", the value; else NULL. */
static const char *cmdline_value(const char *word, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(word, key, n) || word[n] != '=')
		return NULL;
	return word + n + 1;
}

static int cmdline_parse_job(const char *v, long *out, char *err,
			     size_t errlen)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 0) {
		snprintf(err, errlen, "invalid klab.job '%s'", v);
		return -1;
	}
	*out = n;
	return 0;
}

/* Store one klab.* word in c; 0, or -1 with err filled. */
static int cmdline_take(struct agent_cmdline *c, const char *w, char *err,
			size_t errlen)
{
	static const char *const keys[] = {
		"klab.url", "klab.rig", "klab.token", "klab.release",
	};
	char **fields[] = { &c->url, &c->rig, &c->token, &c->release };
	const char *v;
	size_t i;

	v = cmdline_value(w, "klab.job");
	if (v)
		return cmdline_parse_job(v, &c->job, err, errlen);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = cmdline_value(w, keys[i]);
		if (!v)
			continue;
		free(*fields[i]);
		*fields[i] = strdup(v);
		if (!*fields[i])
			abort();
	}
	return 0;
}

int agent_cmdline_parse(const char *text, struct agent_cmdline *out,
			char *err, size_t errlen)
{
	struct strbuf w = STRBUF_INIT;
	const char *p = text;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	sb_init(&w);
	while (rc == 0 && cmdline_next(&p, &w))
		rc = cmdline_take(out, w.buf, err, errlen);
	sb_release(&w);
	if (rc)
		agent_cmdline_release(out);
	return rc;
}

void agent_cmdline_release(struct agent_cmdline *c)
{
	free(c->url);
	free(c->rig);
	free(c->token);
	free(c->release);
	memset(c, 0, sizeof(*c));
}

static int cmdline_is_ours(const char *w)
{
	static const char *const keys[] = {
		"klab.url", "klab.rig", "klab.token", "klab.job",
		"klab.release",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (cmdline_value(w, keys[i]))
			return 1;
	return 0;
}

/*
 * Append word w, quoting its value again when it holds blanks; the whole
 * word when its key does ("a b=c" must not come back as a word "b=c").
 */
static void cmdline_add_word(struct strbuf *sb, const char *w)
{
	const char *eq = strchr(w, '=');
	size_t plain = strcspn(w, CMDLINE_BLANKS);

	if (sb->len)
		sb_addc(sb, ' ');
	if (!w[plain])
		sb_adds(sb, w);
	else if (eq && eq < w + plain)
		sb_addf(sb, "%.*s=\"%s\"", (int)(eq - w), w, eq + 1);
	else
		sb_addf(sb, "\"%s\"", w);
}

/* Append key=value as one word. */
static void cmdline_add_kv(struct strbuf *sb, const char *key,
			   const char *value)
{
	struct strbuf w = STRBUF_INIT;

	sb_init(&w);
	sb_addf(&w, "%s=%s", key, value ? value : "");
	cmdline_add_word(sb, w.buf);
	sb_release(&w);
}

void agent_cmdline_for_job(struct strbuf *sb, const char *base,
			   const struct agent_config *cfg, long job,
			   const char *release)
{
	struct strbuf w = STRBUF_INIT;
	const char *p = base ? base : "";
	char id[32];

	sb_init(&w);
	while (cmdline_next(&p, &w))
		if (!cmdline_is_ours(w.buf))
			cmdline_add_word(sb, w.buf);
	sb_release(&w);
	snprintf(id, sizeof(id), "%ld", job);
	cmdline_add_kv(sb, "klab.url", cfg->url);
	cmdline_add_kv(sb, "klab.rig", cfg->rig);
	cmdline_add_kv(sb, "klab.token", cfg->token);
	cmdline_add_kv(sb, "klab.job", id);
	cmdline_add_kv(sb, "klab.release", release);
}
