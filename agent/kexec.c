// SPDX-License-Identifier: MIT
/*
 * Switching kernels without a firmware reboot: kexec-tools loads the
 * next kernel and initramfs (`kexec -l`) and jumps into it (`kexec -e`).
 * Both run as child processes; their output goes to a file next to the
 * kernel so a failure can quote what kexec said.  See agent.h.
 */
#include "agent/agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEXEC_TIMEOUT 120L

/* Append the last line of file path to err after ": ". */
static void kexec_quote(const char *path, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(err);
	char *nl;

	sb_init(&sb);
	if (sb_read_file(&sb, path) == 0) {
		while (sb.len && sb.buf[sb.len - 1] == '\n')
			sb.buf[--sb.len] = '\0';
		nl = strrchr(sb.buf, '\n');
		if (sb.len && len + 3 < errlen)
			snprintf(err + len, errlen - len, ": %s",
				 nl ? nl + 1 : sb.buf);
	}
	sb_release(&sb);
}

/* Run argv with output to workdir/kexec.log; 0 or -1 with err. */
static int kexec_run(const struct agent_config *cfg, char **argv,
		     char *err, size_t errlen)
{
	struct strbuf log = STRBUF_INIT;
	int rc;

	sb_init(&log);
	sb_addf(&log, "%s/kexec.log", cfg->workdir);
	rc = agent_run(argv, log.buf, KEXEC_TIMEOUT, err, errlen);
	if (rc > 0) {
		snprintf(err, errlen, "'%s %s' exited with status %d",
			 argv[0], argv[1], rc);
		kexec_quote(log.buf, err, errlen);
	}
	sb_release(&log);
	return rc ? -1 : 0;
}

int kexec_load(const struct agent_config *cfg, const char *kernel,
	       const char *initrd, const char *append, char *err,
	       size_t errlen)
{
	struct strbuf rd = STRBUF_INIT, ap = STRBUF_INIT;
	char *argv[7];
	int n = 0, rc;

	sb_init(&rd);
	sb_init(&ap);
	argv[n++] = cfg->kexec;
	argv[n++] = "-l";
	/* no purgatory checksum of the loaded images: under TCG it costs
	 * more than the boot itself; the agent checked their sha256 */
	argv[n++] = "-i";
	argv[n++] = (char *)kernel;
	if (initrd) {
		sb_addf(&rd, "--initrd=%s", initrd);
		argv[n++] = rd.buf;
	}
	sb_addf(&ap, "--append=%s", append);
	argv[n++] = ap.buf;
	argv[n] = NULL;
	rc = kexec_run(cfg, argv, err, errlen);
	sb_release(&rd);
	sb_release(&ap);
	return rc;
}

int kexec_exec(const struct agent_config *cfg, char *err, size_t errlen)
{
	char *argv[] = { cfg->kexec, "-e", NULL };

	sync();
	if (kexec_run(cfg, argv, err, errlen))
		return -1;
	snprintf(err, errlen, "'%s -e' returned without switching kernels",
		 cfg->kexec);
	return -1;
}
