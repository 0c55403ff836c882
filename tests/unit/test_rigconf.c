// SPDX-License-Identifier: MIT
/*
 * Unit tests for lib/rigconf.c: the canonical text of a rig's
 * configuration (sorted by key, first of duplicate keys kept, newlines in
 * values folded), its short hash (order of the lines does not matter, a
 * changed value does, the empty text has none), key lookup and the keys
 * in which configurations differ; and what klabd records for a QEMU rig
 * (lab/rig_conf.c) from its settings and qemu-rig.sh's qemu.args.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/rig.h"
#include "lab/rig_conf.h"
#include "lib/rigconf.h"
#include "lib/sha256.h"

static char *canon_of(const char *const *kv)
{
	struct strbuf sb = STRBUF_INIT;
	char *c;

	sb_init(&sb);
	for (; kv[0]; kv += 2)
		rigconf_add(&sb, kv[0], kv[1]);
	c = rigconf_canonical(sb.buf);
	sb_release(&sb);
	return c;
}

static void test_canonical(void **state)
{
	const char *a[] = { "memory_mb", "1024", "kind", "qemu", "cpus", "1",
			    "qemu", "QEMU emulator\nversion 8.2", "kind",
			    "remote", NULL };
	char *c = canon_of(a), *d;

	assert_string_equal(c, "cpus=1\nkind=qemu\nmemory_mb=1024\n"
			    "qemu=QEMU emulator version 8.2\n");
	d = rigconf_canonical(c);	/* canonical is a fixed point */
	assert_string_equal(c, d);
	free(d);
	free(c);
	/* a key that is a prefix of another sorts first */
	c = rigconf_canonical("disks=1\ndisk=2\n\n\ndisk_mb=3");
	assert_string_equal(c, "disk=2\ndisk_mb=3\ndisks=1\n");
	free(c);
	c = rigconf_canonical(NULL);
	assert_string_equal(c, "");
	free(c);
	c = rigconf_canonical("");
	assert_string_equal(c, "");
	free(c);
}

static void test_hash(void **state)
{
	const char *a[] = { "kind", "qemu", "cpus", "1", "memory_mb", "1024",
			    NULL };
	const char *b[] = { "memory_mb", "1024", "cpus", "1", "kind", "qemu",
			    NULL };
	const char *m[] = { "memory_mb", "2048", "cpus", "1", "kind", "qemu",
			    NULL };
	char ha[RIGCONF_HASH_LEN + 1], hb[RIGCONF_HASH_LEN + 1];
	char hm[RIGCONF_HASH_LEN + 1], full[SHA256_HEX_LEN + 1];
	char *ca = canon_of(a), *cb = canon_of(b), *cm = canon_of(m);

	rigconf_hash(ca, ha);
	rigconf_hash(cb, hb);
	rigconf_hash(cm, hm);
	assert_int_equal(strlen(ha), RIGCONF_HASH_LEN);
	assert_string_equal(ha, hb);
	assert_string_not_equal(ha, hm);
	sha256_hex(ca, strlen(ca), full);
	assert_memory_equal(ha, full, RIGCONF_HASH_LEN);
	assert_int_equal(strspn(ha, "0123456789abcdef"), RIGCONF_HASH_LEN);
	rigconf_hash("", ha);
	assert_string_equal(ha, "");
	rigconf_hash(NULL, ha);
	assert_string_equal(ha, "");
	free(ca);
	free(cb);
	free(cm);
}

static void test_get(void **state)
{
	const char *c = "cpus=1\ndisk=a=b\ndisks=4\nkind=qemu\n";
	char *v;

	v = rigconf_get(c, "disk");
	assert_string_equal(v, "a=b");
	free(v);
	v = rigconf_get(c, "disks");
	assert_string_equal(v, "4");
	free(v);
	assert_null(rigconf_get(c, "dis"));
	assert_null(rigconf_get(c, "memory_mb"));
	assert_null(rigconf_get("", "cpus"));
}

static void expect_diff(const char *const *t, size_t n, size_t i,
			const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	sb_init(&sb);
	rigconf_diff(t, n, i, &sb);
	assert_string_equal(sb.buf ? sb.buf : "", want);
	sb_release(&sb);
}

static void test_diff(void **state)
{
	const char *t[] = { "cpus=1\nkind=remote\nmemory_mb=1024\n",
			    "cpus=1\nkind=remote\nmemory_mb=2048\n",
			    "cpus=1\ndrive=cache=none\nkind=remote\n"
			    "memory_mb=2048\n", "" };

	expect_diff(t, 2, 0, "memory_mb=1024");
	expect_diff(t, 2, 1, "memory_mb=2048");
	expect_diff(t, 3, 0, "memory_mb=1024 drive=");
	expect_diff(t, 3, 2, "drive=cache=none memory_mb=2048");
	/* a key missing from two texts is named once */
	expect_diff(t + 1, 3, 2, "cpus= kind= memory_mb= drive=");
	expect_diff(t, 1, 0, "");
}

/* A QEMU rig: its settings, and the block graph of the first disk in its
 * qemu.args without file names; no drive key before its first boot. */
static void test_qemu_rig(void **state)
{
	char dir[] = "/tmp/klab-rigconf.XXXXXX", path[64];
	struct rig g;
	FILE *f;
	char *c;

	assert_non_null(mkdtemp(dir));
	memset(&g, 0, sizeof(g));
	g.name = "q1";
	g.kind = "qemu";
	g.profile = "ide";
	g.cpus = 2;
	g.memory_mb = 768;
	g.disk_mb = 256;
	g.disks = 1;
	g.disk_model = "hdd";
	g.dir = dir;
	c = rig_conf_text(NULL, &g, NULL);
	assert_non_null(strstr(c, "cpus=2\ndisk_mb=256\ndisk_model=hdd\n"
			       "disks=1\nkind=qemu\nmemory_mb=768\n"
			       "profile=ide\n"));
	assert_null(strstr(c, "drive="));
	assert_null(strstr(c, "pin="));
	free(c);
	g.pin = "1/0";
	c = rig_conf_text(NULL, &g, NULL);
	assert_non_null(strstr(c, "\npin=1/0\n"));
	free(c);
	g.pin = "";
	snprintf(path, sizeof(path), "%s/qemu.args", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("qemu-system-x86_64\n-m\n768\n-device\nvirtio-net-pci,"
	      "netdev=n0\n-device\nvirtio-scsi-pci,id=scsi0,cmd_per_lun=1\n"
	      "-blockdev\ndriver=file,node-name=f0,filename=/x/d0.img,"
	      "cache.direct=on\n-blockdev\ndriver=null-co,node-name=n0,"
	      "latency-ns=8000000\n-object\nthrottle-group,id=g0,"
	      "x-bps-total=9\n-device\nscsi-hd,drive=t0,bus=scsi0.0,"
	      "scsi-id=0,lun=0\n-blockdev\ndriver=file,node-name=f10,"
	      "filename=/x/d1.img\n-device\nscsi-hd,drive=t10,lun=1\n", f);
	fclose(f);
	c = rig_conf_text(NULL, &g, NULL);
	assert_non_null(strstr(c, "\ndrive=virtio-scsi-pci,id=scsi0,"
			       "cmd_per_lun=1 driver=file,node-name=f0,"
			       "cache.direct=on driver=null-co,node-name=n0,"
			       "latency-ns=8000000 throttle-group,id=g0,"
			       "x-bps-total=9 scsi-hd,drive=t0,bus=scsi0.0\n"));
	free(c);
	unlink(path);
	rmdir(dir);
}

/* The suite text's hash joins the configuration in its sorted place;
 * anything but 64 lowercase hex digits leaves the configuration as it
 * was. */
static void test_with_suite(void **state)
{
	static const char *const bad[] = {
		NULL, "", "0123", "ABCDEF0123456789abcdef0123456789abcdef0123"
		"456789abcdef01234567",
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
		"abcdeg", "0123456789abcdef0123456789abcdef0123456789abcdef"
		"0123456789abcdef0",
	};
	const char *sha = "0123456789abcdef0123456789abcdef0123456789abcdef"
			  "0123456789abcdef";
	char *c;
	size_t i;

	(void)state;
	c = rig_conf_with_suite(rigconf_canonical("kind=qemu\nqemu=7.2\n"),
				sha);
	assert_string_equal(c, "kind=qemu\nqemu=7.2\n"
			    "suite_sha=0123456789ab\n");
	free(c);
	c = rig_conf_with_suite(rigconf_canonical("kind=qemu\ntz=1\n"), sha);
	assert_string_equal(c, "kind=qemu\nsuite_sha=0123456789ab\ntz=1\n");
	free(c);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = rig_conf_with_suite(rigconf_canonical("kind=qemu\n"),
					bad[i]);
		assert_string_equal(c, "kind=qemu\n");
		free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_qemu_rig),
		cmocka_unit_test(test_with_suite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
