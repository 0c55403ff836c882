// SPDX-License-Identifier: MIT
/*
 * Unit tests for klab-agent's pure parts: the kernel command line (read
 * and rebuilt for the next kernel), the I/O scheduler line, disk discovery
 * on a fake /sys tree, the job document, and which file systems a kexec
 * writes back.
 *
 * The Makefile's unit-test rule links libctl/libwl/libcore only, so the
 * agent files under test are compiled in here (they need nothing but
 * lib/, libc and jansson).  Their public names are renamed first: once
 * the dependency file exists, the rule's $^ also hands those .c files to
 * the link, and the two copies must not clash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define agent_cmdline_parse t_agent_cmdline_parse
#define agent_cmdline_release t_agent_cmdline_release
#define agent_cmdline_for_job t_agent_cmdline_for_job
#define sysinfo_parse_scheduler t_sysinfo_parse_scheduler
#define sysinfo_collect t_sysinfo_collect
#define sysinfo_release t_sysinfo_release
#define sysinfo_disk t_sysinfo_disk
#define sysinfo_to_json t_sysinfo_to_json
#define job_parse t_job_parse
#define job_release t_job_release
#define job_name_ok t_job_name_ok
#define job_raw_text t_job_raw_text
#define kexec_load t_kexec_load
#define kexec_exec t_kexec_exec
#define kexec_sync_mounts t_kexec_sync_mounts
#include "agent/cmdline.c"
#include "agent/kexec.c"
#include "agent/jobspec.c"
#include "agent/sysinfo.c"
#include "lib/utf8.h"

static void test_cmdline_parse(void **state)
{
	struct agent_cmdline c;
	char err[128];

	assert_int_equal(agent_cmdline_parse(
		"BOOT_IMAGE=/vmlinuz console=ttyS0,115200 klab.url=http://10.0."
		"2.100:8080 klab.rig=scsi0  klab.token=abc123\tklab.job=7 "
		"klab.release=6.1.0-57-cloud-amd64 quiet\n", &c, err,
		sizeof(err)), 0);
	assert_string_equal(c.url, "http://10.0.2.100:8080");
	assert_string_equal(c.rig, "scsi0");
	assert_string_equal(c.token, "abc123");
	assert_int_equal(c.job, 7);
	assert_string_equal(c.release, "6.1.0-57-cloud-amd64");
	agent_cmdline_release(&c);

	/* a cold boot: nothing of ours, the last of a repeated key wins */
	assert_int_equal(agent_cmdline_parse("ro klab.rig=a klab.rig=b "
					     "\"klab.token=x y\"", &c, err,
					     sizeof(err)), 0);
	assert_null(c.url);
	assert_int_equal(c.job, 0);
	assert_null(c.release);
	assert_string_equal(c.rig, "b");
	assert_string_equal(c.token, "x y");
	agent_cmdline_release(&c);

	assert_int_equal(agent_cmdline_parse("", &c, err, sizeof(err)), 0);
	agent_cmdline_release(&c);
	/* klab.jobs= is another key; prefixes do not match */
	assert_int_equal(agent_cmdline_parse("klab.jobs=x klab.urlx=y", &c,
					     err, sizeof(err)), 0);
	assert_null(c.url);
	agent_cmdline_release(&c);
}

static void test_cmdline_bad_job(void **state)
{
	static const char *const bad[] = {
		"klab.job=x", "klab.job=", "klab.job=7a", "klab.job=-3",
		"klab.job=99999999999999999999999",
	};
	struct agent_cmdline c;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(agent_cmdline_parse(bad[i], &c, err,
						     sizeof(err)), -1);
		assert_non_null(strstr(err, "invalid klab.job '"));
		assert_null(c.url);
	}
}

static void test_cmdline_for_job(void **state)
{
	struct agent_config cfg = { 0 };
	struct strbuf sb = STRBUF_INIT;
	struct agent_cmdline c;
	char err[128];

	cfg.url = "http://10.0.2.100:8080";
	cfg.rig = "scsi0";
	cfg.token = "t0k";
	sb_init(&sb);
	agent_cmdline_for_job(&sb, "console=ttyS0 klab.job=3 klab.rig=old "
			      "klab.release=6.1 foo=\"a b\" quiet", &cfg, 8,
			      "6.12.117+deb12-cloud-amd64");
	assert_string_equal(sb.buf, "console=ttyS0 foo=\"a b\" quiet "
		"klab.url=http://10.0.2.100:8080 klab.rig=scsi0 klab.token=t0k "
		"klab.job=8 klab.release=6.12.117+deb12-cloud-amd64");
	/* and what the next boot reads back is what we meant */
	assert_int_equal(agent_cmdline_parse(sb.buf, &c, err, sizeof(err)), 0);
	assert_int_equal(c.job, 8);
	assert_string_equal(c.rig, "scsi0");
	assert_string_equal(c.release, "6.12.117+deb12-cloud-amd64");
	agent_cmdline_release(&c);
	sb_reset(&sb);
	agent_cmdline_for_job(&sb, NULL, &cfg, 1, "r");
	assert_string_equal(sb.buf, "klab.url=http://10.0.2.100:8080 "
			    "klab.rig=scsi0 klab.token=t0k klab.job=1 "
			    "klab.release=r");
	sb_release(&sb);
}

static void test_scheduler_line(void **state)
{
	struct disk_info d;

	assert_int_equal(sysinfo_parse_scheduler("[mq-deadline] none\n", &d),
			 0);
	assert_string_equal(d.sched, "mq-deadline");
	assert_int_equal(d.nsched, 2);
	assert_string_equal(d.scheds[0], "mq-deadline");
	assert_string_equal(d.scheds[1], "none");

	assert_int_equal(sysinfo_parse_scheduler("mq-deadline kyber [bfq] none",
						 &d), 0);
	assert_string_equal(d.sched, "bfq");
	assert_int_equal(d.nsched, 4);
	assert_string_equal(d.scheds[2], "bfq");

	assert_int_equal(sysinfo_parse_scheduler("[none]", &d), 0);
	assert_string_equal(d.sched, "none");
	assert_int_equal(d.nsched, 1);
	/* no current one marked: still a list */
	assert_int_equal(sysinfo_parse_scheduler("none", &d), 0);
	assert_string_equal(d.sched, "");
	assert_int_equal(d.nsched, 1);
}

static void test_scheduler_line_bad(void **state)
{
	static const char *const bad[] = {
		"", "  \n", "[a] [b]", "[a", "a]", "[]", "[a]b", "a[b]",
		"a b c d e f g h i",
		"[abcdefghijabcdefghijabcdefghijabcdefghij"
		"abcdefghijabcdefghijklmnopqrstuvwxyz]",
	};
	struct disk_info d;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sysinfo_parse_scheduler(bad[i], &d), -1);
		assert_int_equal(d.nsched, 0);
		assert_string_equal(d.sched, "");
	}
}

static void put(const char *root, const char *path, const char *text)
{
	char full[512], *p;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (p = strchr(full + strlen(root) + 1, '/'); p;
	     p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(full, 0755);
		*p = '/';
	}
	f = fopen(full, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_sysinfo_fake_tree(void **state)
{
	char root[] = "/tmp/klab-sysfs.XXXXXX", err[256], cmd[600];
	struct sysinfo si;
	json_t *j;

	assert_non_null(mkdtemp(root));
	put(root, "/proc/meminfo",
	    "MemTotal:        1004512 kB\nMemFree: 1 kB\n");
	put(root, "/sys/block/sdb/size", "2048\n");
	put(root, "/sys/block/sdb/device/model", "QEMU HARDDISK   \n");
	put(root, "/sys/block/sdb/queue/scheduler", "[mq-deadline] none\n");
	put(root, "/sys/block/sda/size", "262144\n");
	put(root, "/sys/block/sda/device/model", "QEMU HARDDISK\n");
	put(root, "/sys/block/sda/queue/scheduler", "mq-deadline [none]\n");
	put(root, "/sys/block/loop0/size", "8\n");
	put(root, "/sys/block/loop0/device/x", "");
	put(root, "/sys/block/zz/size", "8\n");	/* no device: virtual */
	/* the boot-file cache disk is never a test disk; another serial is */
	put(root, "/sys/block/vda/size", "1048576\n");
	put(root, "/sys/block/vda/device/x", "");
	put(root, "/sys/block/vda/serial", "klab-cache\n");
	put(root, "/sys/block/vdb/size", "8\n");
	put(root, "/sys/block/vdb/device/x", "");
	put(root, "/sys/block/vdb/serial", "klab-cache2\n");

	assert_int_equal(sysinfo_collect(root, NULL, &si, err, sizeof(err)), 0);
	assert_int_equal(si.memory_mb, 980);
	assert_true(si.cpus >= 1);
	assert_int_equal(si.ndisks, 3);
	assert_string_equal(si.disks[0].name, "sda");
	assert_int_equal(si.disks[0].size_bytes, 262144ULL * 512);
	assert_string_equal(si.disks[2].name, "vdb");
	assert_string_equal(si.disks[0].sched, "none");
	assert_string_equal(si.disks[1].name, "sdb");
	assert_string_equal(si.disks[1].model, "QEMU HARDDISK");
	j = sysinfo_to_json(&si, "scsi0", 4);
	assert_int_equal(json_integer_value(json_object_get(j, "job")), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(j, "disks"), 1), "scheduler")), "mq-deadline");
	json_decref(j);
	sysinfo_release(&si);

	/* an override: a block device by path and a plain file */
	snprintf(cmd, sizeof(cmd), "/dev/sdb,%s/proc/meminfo", root);
	assert_int_equal(sysinfo_collect(root, cmd, &si, err, sizeof(err)), 0);
	assert_int_equal(si.ndisks, 2);
	assert_string_equal(si.disks[0].name, "sdb");
	assert_int_equal(si.disks[1].nsched, 0);
	sysinfo_release(&si);
	assert_int_equal(sysinfo_collect(root, "/dev/nosuch", &si, err,
					 sizeof(err)), -1);
	assert_string_equal(err, "unknown disk '/dev/nosuch'");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static const char *job_doc =
	"{\"id\":7,\"kernel\":\"6.1.192\",\"release\":\"6.1.0-57-cloud-amd64\","
	"\"kernel_url\":\"/api/agent/files/aa\",\"kernel_sha256\":"
	"\"0000000000000000000000000000000000000000000000000000000000000000\","
	"\"initrd_url\":\"/api/agent/files/bb\",\"initrd_sha256\":"
	"\"1111111111111111111111111111111111111111111111111111111111111111\","
	"\"cmdline\":\"console=ttyS0\",\"suite\":\"tiobench\",\"suite_text\":"
	"\"x\",\"scheduler\":\"\",\"scale\":0.05,\"disks\":[\"/dev/sda\"],"
	"\"timeout\":600}";

static void test_job_parse(void **state)
{
	json_t *doc = json_loads(job_doc, 0, NULL);
	struct job job;
	char err[256];

	assert_int_equal(job_parse(doc, &job, err, sizeof(err)), 0);
	assert_int_equal(job.id, 7);
	assert_string_equal(job.release, "6.1.0-57-cloud-amd64");
	assert_null(job.scheduler);	/* "" means leave it */
	assert_true(job.scale == 0.05);
	assert_string_equal(job.disks[0], "/dev/sda");
	assert_null(job.disks[1]);
	assert_int_equal(job.timeout, 600);
	job_release(&job);

	json_object_set_new(doc, "suite", json_string("../etc/passwd"));
	assert_int_equal(job_parse(doc, &job, err, sizeof(err)), -1);
	assert_string_equal(err, "job: invalid suite name '../etc/passwd'");
	json_object_set_new(doc, "suite", json_string("tiobench"));
	json_object_del(doc, "initrd_sha256");
	assert_int_equal(job_parse(doc, &job, err, sizeof(err)), -1);
	json_object_del(doc, "initrd_url");
	assert_int_equal(job_parse(doc, &job, err, sizeof(err)), 0);
	assert_null(job.initrd_url);
	job_release(&job);
	json_object_set_new(doc, "id", json_string("7"));
	assert_int_equal(job_parse(doc, &job, err, sizeof(err)), -1);
	assert_string_equal(err, "job: member 'id' is not a job id");
	json_object_set_new(doc, "id", json_integer(7));
	json_object_del(doc, "release");
	assert_int_equal(job_parse(doc, &job, err, sizeof(err)), -1);
	assert_string_equal(err, "job: missing member 'release'");
	json_decref(doc);
	assert_int_equal(job_parse(NULL, &job, err, sizeof(err)), -1);
}

static void test_raw_text(void **state)
{
	static const char hostile[] = "Gr\xc3\xbc\xc3\x9f \xff\xfe\xc3(x)\x80 "
				      "\xed\xa0\x80 \xc0\xaf \0 end";
	char *want;
	json_t *s;

	/* bytes that are not UTF-8: U+FFFD each, as lib/utf8.h's rule */
	s = job_raw_text("ok \xc3\xa9 \xff\xfe end", 12, 100);
	assert_string_equal(json_string_value(s),
			    "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd end");
	json_decref(s);
	/* a cut in the middle of a sequence does not leave half of it */
	s = job_raw_text("ab\xc3\xa9", 4, 3);
	assert_non_null(strstr(json_string_value(s), "ab\xef\xbf\xbd\n"
			       "[klab-agent: cut at 3 of 4 bytes]"));
	json_decref(s);
	s = job_raw_text("a\0b", 3, 10);
	assert_string_equal(json_string_value(s), "a\xef\xbf\xbd" "b");
	json_decref(s);
	/* the same output as the rule */
	want = utf8_repair(hostile, sizeof(hostile) - 1);
	s = job_raw_text(hostile, sizeof(hostile) - 1, 1000);
	assert_string_equal(json_string_value(s), want);
	json_decref(s);
	free(want);
}

/* kexec.c's child processes are not run here: their argv is kept */
static char run_argv[1024];

int agent_run(char *const argv[], const char *out, long timeout, char *err,
	      size_t errlen)
{
	size_t n = 0;
	int i;

	(void)out;
	(void)timeout;
	run_argv[0] = '\0';
	for (i = 0; argv[i] && n < sizeof(run_argv); i++)
		n += (size_t)snprintf(run_argv + n, sizeof(run_argv) - n,
				      "%s%s", i ? " " : "", argv[i]);
	snprintf(err, errlen, "not run in unit tests");
	return -1;
}

void agent_log(const char *fmt, ...)
{
	(void)fmt;
}

/*
 * kexec -l: an ELF kernel (klabd's kexec image) gets --args-linux, a
 * bzImage does not; no purgatory checksum either way.
 */
static void test_kexec_load_args(void **state)
{
	struct agent_config cfg;
	char dir[] = "/tmp/klab-test-agent.XXXXXX", elf[64], bz[64];
	char err[256];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	memset(&cfg, 0, sizeof(cfg));
	cfg.kexec = "kexec";
	cfg.workdir = dir;
	snprintf(elf, sizeof(elf), "%s/elf", dir);
	snprintf(bz, sizeof(bz), "%s/bz", dir);
	f = fopen(elf, "w");
	assert_non_null(f);
	fputs("\177ELF\2\1\1", f);
	fclose(f);
	f = fopen(bz, "w");
	assert_non_null(f);
	fputs("MZ..HdrS", f);
	fclose(f);
	assert_int_equal(t_kexec_load(&cfg, elf, "/i", "console=ttyS0", err,
				      sizeof(err)), -1);
	assert_int_equal(strncmp(run_argv, "kexec -l -i ", 12), 0);
	assert_non_null(strstr(run_argv, " --args-linux --initrd=/i "
				"--append=console=ttyS0"));
	assert_int_equal(t_kexec_load(&cfg, bz, NULL, "quiet", err,
				      sizeof(err)), -1);
	assert_null(strstr(run_argv, "--args-linux"));
	assert_int_equal(strncmp(run_argv, "kexec -l -i ", 12), 0);
	unlink(elf);
	unlink(bz);
	rmdir(dir);
}

/*
 * Before kexec -e: every mounted file system is written back, pseudo
 * ones and mount points that are gone are skipped, /proc/mounts'
 * escapes are undone; an unreadable list says so (the caller syncs all).
 */
static void test_sync_mounts(void **state)
{
	char dir[] = "/tmp/klab-kexec-XXXXXX", sp[64], mounts[64];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sp, sizeof(sp), "%s/a b", dir);
	assert_int_equal(mkdir(sp, 0700), 0);
	snprintf(mounts, sizeof(mounts), "%s/mounts", dir);
	f = fopen(mounts, "w");
	assert_non_null(f);
	fprintf(f, "/dev/vdb %s ext4 rw 0 0\n", dir);
	fprintf(f, "/dev/vdc %s/a\\040b ext4 rw 0 0\n", dir);
	fprintf(f, "proc /proc proc rw 0 0\n");
	fprintf(f, "tmpfs /dev/shm tmpfs rw 0 0\n");
	fprintf(f, "/dev/vdd %s/gone ext4 rw 0 0\n", dir);
	fprintf(f, "short line\n");
	fclose(f);
	assert_int_equal(kexec_sync_mounts(mounts), 2);
	unlink(mounts);
	assert_int_equal(kexec_sync_mounts(mounts), -1);
	rmdir(sp);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_parse),
		cmocka_unit_test(test_cmdline_bad_job),
		cmocka_unit_test(test_cmdline_for_job),
		cmocka_unit_test(test_scheduler_line),
		cmocka_unit_test(test_scheduler_line_bad),
		cmocka_unit_test(test_sysinfo_fake_tree),
		cmocka_unit_test(test_job_parse),
		cmocka_unit_test(test_raw_text),
		cmocka_unit_test(test_sync_mounts),
		cmocka_unit_test(test_kexec_load_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
