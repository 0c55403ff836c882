// SPDX-License-Identifier: MIT
/*
 * Switching kernels without a firmware reboot: kexec-tools loads the
 * next kernel and initramfs (`kexec -l`) and jumps into it (`kexec -e`).
 * Both run as child processes; their output goes to a file next to the
 * kernel so a failure can quote what kexec said.  See agent.h.
 */
#include "agent/agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
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

/* 1 when path starts as an ELF file does. */
static int kexec_is_elf(const char *path)
{
	char m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC), elf;

	if (fd < 0)
		return 0;
	elf = read(fd, m, 4) == 4 && !memcmp(m, "\177ELF", 4);
	close(fd);
	return elf;
}

int kexec_load(const struct agent_config *cfg, const char *kernel,
	       const char *initrd, const char *append, char *err,
	       size_t errlen)
{
	struct strbuf rd = STRBUF_INIT, ap = STRBUF_INIT;
	char *argv[8];
	int n = 0, rc;

	sb_init(&rd);
	sb_init(&ap);
	argv[n++] = cfg->kexec;
	argv[n++] = "-l";
	/* no purgatory checksum of the loaded images: under TCG it costs
	 * more than the boot itself; the agent checked their sha256 */
	argv[n++] = "-i";
	argv[n++] = (char *)kernel;
	/* klabd's kexec image, a decompressed vmlinux: kexec-tools' ELF
	 * loader takes an initramfs and a command line with this */
	if (kexec_is_elf(kernel)) {
		argv[n++] = "--args-linux";
		agent_log("kexec -l: an ELF kexec image, --args-linux");
	}
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

/* File systems with nothing of their own to write back. */
static int kexec_pseudo_fs(const char *type)
{
	static const char *const pseudo[] = {
		"proc", "sysfs", "devtmpfs", "tmpfs", "ramfs", "rootfs",
		"devpts", "cgroup", "cgroup2", "debugfs", "tracefs",
		"securityfs", "pstore", "bpf", "mqueue", "configfs",
		"fusectl", "hugetlbfs", "binfmt_misc", "autofs", "efivarfs",
	};
	size_t i;

	for (i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (!strcmp(type, pseudo[i]))
			return 1;
	return 0;
}

/* Undo /proc/mounts' octal escapes (\040 for a space) in place. */
static void kexec_unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int kexec_sync_mounts(const char *mounts)
{
	char line[4096], dev[1024], dir[2048], type[128];
	FILE *f = fopen(mounts, "r");
	int n = 0, fd;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%1023s %2047s %127s", dev, dir, type) != 3 ||
		    kexec_pseudo_fs(type))
			continue;
		kexec_unescape(dir);
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (syncfs(fd) == 0)
			n++;
		close(fd);
	}
	fclose(f);
	return n;
}

/*
 * The boot-file cache read-only for the switch, when it is a mount of
 * its own (a QEMU rig's /cache): the file system is then clean, so the
 * next kernel mounts it without replaying its journal (0.2 s of every
 * switch under TCG).  1 when it was remounted, for kexec_cache_rw.
 */
static int kexec_cache_ro(const struct agent_config *cfg)
{
	struct strbuf up = STRBUF_INIT;
	struct stat a, b;
	int mounted;

	if (!cfg->cache_dir || !*cfg->cache_dir || *cfg->sysroot)
		return 0;
	sb_init(&up);
	sb_addf(&up, "%s/..", cfg->cache_dir);
	mounted = !stat(cfg->cache_dir, &a) && !stat(up.buf, &b) &&
		  a.st_dev != b.st_dev;
	sb_release(&up);
	return mounted && !mount(NULL, cfg->cache_dir, NULL,
				 MS_REMOUNT | MS_RDONLY, NULL);
}

/* A kexec -e that came back: the cache writable again. */
static void kexec_cache_rw(const struct agent_config *cfg)
{
	if (mount(NULL, cfg->cache_dir, NULL, MS_REMOUNT, NULL))
		agent_log("cannot make the boot-file cache '%s' writable "
			  "again: %s", cfg->cache_dir, strerror(errno));
}

int kexec_exec(const struct agent_config *cfg, char *err, size_t errlen)
{
	char *argv[] = { cfg->kexec, "-e", "-y", NULL };
	struct strbuf mounts = STRBUF_INIT;
	int ro, rc;

	/*
	 * Write back every mounted file system (the boot-file cache disk,
	 * a real machine's root), but not the test disks' raw page cache:
	 * the writers' last dirty megabytes are scratch, and on the hdd
	 * model writing them back took seconds of every switch (issue 31).
	 * A global sync() would write them too, so neither the agent nor
	 * kexec (-y) calls it; the new kernel never reads that data.
	 */
	sb_init(&mounts);
	sb_addf(&mounts, "%s/proc/self/mounts", cfg->sysroot);
	if (kexec_sync_mounts(mounts.buf) < 0)
		sync();
	sb_release(&mounts);
	ro = kexec_cache_ro(cfg);
	rc = kexec_run(cfg, argv, err, errlen);
	/* still here: the switch did not happen */
	if (ro)
		kexec_cache_rw(cfg);
	if (rc)
		return -1;
	snprintf(err, errlen, "'%s -e' returned without switching kernels",
		 cfg->kexec);
	return -1;
}
