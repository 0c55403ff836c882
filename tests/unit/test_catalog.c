// SPDX-License-Identifier: MIT
/*
 * Unit tests for the boot files klabd hands out (lab/catalog.c):
 * catalog_file_register hashes a file once while its size and mtime stay
 * the same, for every path, also when two paths hold the same bytes (a
 * base's and a patched kernel's initramfs: before, the second path was
 * hashed again on every hand-out); a changed file is hashed again; a
 * hash finds a path holding it; a grant to a rig never hashes, and
 * refuses a file changed since it was hashed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "lab/catalog.h"
#include "klabd/klabd.h"

static char dir[256];

static void put(const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Rewrite path with text of the same length, its mtime kept: a file the
 * cache must believe unchanged. */
static void swap_bytes(const char *path, const char *text)
{
	struct stat st;
	struct timeval tv[2];
	FILE *f;

	assert_int_equal(stat(path, &st), 0);
	f = fopen(path, "r+");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	tv[0].tv_sec = tv[1].tv_sec = st.st_mtime;
	tv[0].tv_usec = tv[1].tv_usec = 0;
	assert_int_equal(utimes(path, tv), 0);
}

static void test_two_paths(void **state)
{
	struct klabd d;
	char a[300], b[300], sa[65], sb[65], again[65];
	enum outcome o = OUT_OK;

	(void)state;
	memset(&d, 0, sizeof(d));
	catalog_init(&d);
	snprintf(dir, sizeof(dir), "%s/klab-catalog-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	put("base.img", "same bytes", a, sizeof(a));
	put("patched.img", "same bytes", b, sizeof(b));
	assert_int_equal(catalog_file_register(&d, a, sa), 0);
	assert_int_equal(catalog_file_register(&d, b, sb), 0);
	assert_string_equal(sa, sb);
	/* registered is not granted: no rig may download it yet */
	assert_null(catalog_file_path(&d, sa, "r1", &o));
	assert_int_equal(o, OUT_FORBIDDEN);
	assert_null(catalog_file_path(&d, "0123", "r1", &o));
	assert_int_equal(o, OUT_NOTFOUND);
	assert_int_equal(catalog_file_offer(&d, a, "r1", sa), 0);
	assert_non_null(catalog_file_path(&d, sa, "r1", &o));
	assert_int_equal(o, OUT_OK);
	assert_null(catalog_file_path(&d, sa, "r2", &o));

	/* both paths are cached: bytes swapped behind the cache's back
	 * (same size, same mtime) are not read again */
	swap_bytes(b, "SAME BYTES");
	assert_int_equal(catalog_file_register(&d, b, again), 0);
	assert_string_equal(again, sb);
	swap_bytes(a, "SAME BYTES");
	assert_int_equal(catalog_file_register(&d, a, again), 0);
	assert_string_equal(again, sa);

	/* a file that changed size is hashed again, and found by its hash */
	put("patched.img", "other bytes, longer", b, sizeof(b));
	assert_int_equal(catalog_file_register(&d, b, again), 0);
	assert_string_not_equal(again, sb);
	assert_int_equal(catalog_file_offer(&d, b, "r1", again), 0);
	assert_string_equal(catalog_file_path(&d, again, "r1", &o), b);

	catalog_release(&d);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/* A grant (a job's hand-out) looks, never hashes: a file changed since
 * it was hashed, or never registered, or with another hash, is refused
 * until it is registered again. */
static void test_grant(void **state)
{
	struct klabd d;
	char a[300], sa[65], again[65];
	enum outcome o = OUT_OK;

	(void)state;
	memset(&d, 0, sizeof(d));
	catalog_init(&d);
	snprintf(dir, sizeof(dir), "%s/klab-catalog-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	put("image", "kernel bytes", a, sizeof(a));
	memset(sa, '0', 64);
	sa[64] = '\0';
	assert_int_equal(catalog_file_grant(&d, a, sa, "r1"), -1);
	assert_int_equal(catalog_file_register(&d, a, sa), 0);
	assert_int_equal(catalog_file_grant(&d, a, sa, "r1"), 0);
	assert_string_equal(catalog_file_path(&d, sa, "r1", &o), a);

	put("image", "other kernel bytes", a, sizeof(a));
	assert_int_equal(catalog_file_grant(&d, a, sa, "r2"), -1);
	assert_null(catalog_file_path(&d, sa, "r2", &o));
	assert_int_equal(o, OUT_FORBIDDEN);
	assert_int_equal(catalog_file_register(&d, a, again), 0);
	assert_string_not_equal(again, sa);
	assert_int_equal(catalog_file_grant(&d, a, sa, "r2"), -1);
	assert_int_equal(catalog_file_grant(&d, a, again, "r2"), 0);
	assert_string_equal(catalog_file_path(&d, again, "r2", &o), a);
	/* the new bytes start with no rig */
	assert_null(catalog_file_path(&d, again, "r1", &o));

	catalog_release(&d);
	unlink(a);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_paths),
		cmocka_unit_test(test_grant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
