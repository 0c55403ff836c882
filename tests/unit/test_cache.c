// SPDX-License-Identifier: MIT
/*
 * Unit tests for the rig's boot-file cache (agent/cache.c): sha256 keys,
 * a verified hit that refreshes the entry's recency, a corrupt entry
 * detected and removed (never used), and least-recently-used eviction
 * that spares the entries a job still needs and sweeps partial downloads.
 *
 * As in test_agent.c, agent/cache.c is compiled in here with its public
 * names renamed, so that a copy the link may also receive cannot clash.
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
#include <unistd.h>

#define cache_key_ok t_cache_key_ok
#define cache_entry_path t_cache_entry_path
#define cache_entry_check t_cache_entry_check
#define cache_entry_touch t_cache_entry_touch
#define cache_limit t_cache_limit
#define cache_evict t_cache_evict
#include "agent/cache.c"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/klab-cache-test.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Store text under its own sha256 (or under key when given), with mtime
 * age seconds ago; key_out gets the name. */
static void put(const char *text, const char *key, long age, char *key_out)
{
	char path[512], name[SHA256_HEX_LEN + 1];
	struct timespec t[2];
	FILE *f;

	sha256_hex(text, strlen(text), name);
	if (key != key_out)
		memcpy(key_out, key ? key : name, SHA256_HEX_LEN + 1);
	snprintf(path, sizeof(path), "%s/%s", dir, key_out);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static int present(const char *key)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, key);
	return access(path, F_OK) == 0;
}

static void test_key(void **state)
{
	char key[SHA256_HEX_LEN + 1];

	sha256_hex("x", 1, key);
	assert_true(cache_key_ok(key));
	key[3] = 'A';
	assert_false(cache_key_ok(key));	/* uppercase */
	key[3] = 'g';
	assert_false(cache_key_ok(key));
	assert_false(cache_key_ok(""));
	assert_false(cache_key_ok("abc"));
	assert_false(cache_key_ok("../etc/passwd"));
	sha256_hex("x", 1, key);
	key[SHA256_HEX_LEN - 1] = '\0';
	assert_false(cache_key_ok(key));	/* one digit short */
}

static void test_hit_miss_corrupt(void **state)
{
	struct strbuf path = STRBUF_INIT;
	char key[SHA256_HEX_LEN + 1], bad[SHA256_HEX_LEN + 1];
	struct stat st;
	time_t before;

	sb_init(&path);
	sha256_hex("never stored", 12, key);
	assert_int_equal(cache_entry_check(dir, key, &path), CACHE_MISS);
	sb_reset(&path);
	assert_int_equal(cache_entry_check(dir, "../x", &path), CACHE_MISS);

	put("a kernel image", NULL, 3600, key);
	before = time(NULL);
	sb_reset(&path);
	assert_int_equal(cache_entry_check(dir, key, &path), CACHE_HIT);
	assert_non_null(strstr(path.buf, key));
	assert_int_equal(stat(path.buf, &st), 0);
	assert_true(st.st_mtime >= before);	/* used: most recent now */

	/* content that does not hash to its name: removed, never used */
	sha256_hex("the real initramfs", 18, bad);
	put("a truncated initram", bad, 0, bad);
	sb_reset(&path);
	assert_int_equal(cache_entry_check(dir, bad, &path), CACHE_CORRUPT);
	assert_false(present(bad));
	sb_reset(&path);
	assert_int_equal(cache_entry_check(dir, bad, &path), CACHE_MISS);
	assert_int_equal(cache_entry_touch(dir, key), 0);
	assert_int_equal(cache_entry_touch(dir, bad), -1);
	sb_release(&path);
}

static void test_evict_lru(void **state)
{
	char k[4][SHA256_HEX_LEN + 1], part[600], other[600], err[256];
	const char *keep[] = { k[0], NULL };
	unsigned long long left = 0;
	FILE *f;

	/* four 10-byte entries, k[0] the oldest */
	put("entry 0000", NULL, 400, k[0]);
	put("entry 1111", NULL, 300, k[1]);
	put("entry 2222", NULL, 200, k[2]);
	put("entry 3333", NULL, 100, k[3]);
	snprintf(part, sizeof(part), "%s/%s.part", dir, k[3]);
	snprintf(other, sizeof(other), "%s/README", dir);
	f = fopen(part, "w");
	assert_non_null(f);
	fputs("half a download", f);
	fclose(f);
	f = fopen(other, "w");
	assert_non_null(f);
	fclose(f);

	/* under the limit: nothing goes but the partial download */
	assert_int_equal(cache_evict(dir, 40, NULL, &left, err, sizeof(err)),
			 0);
	assert_int_equal(left, 40);
	assert_int_equal(access(part, F_OK), -1);
	assert_int_equal(access(other, F_OK), 0);	/* not ours: kept */

	/* oldest first, but k[0] is kept: k[1] and k[2] go */
	assert_int_equal(cache_evict(dir, 25, keep, &left, err, sizeof(err)),
			 2);
	assert_int_equal(left, 20);
	assert_true(present(k[0]));
	assert_false(present(k[1]));
	assert_false(present(k[2]));
	assert_true(present(k[3]));

	/* a hit makes k[3] the newest: then k[0] is the one to go */
	assert_int_equal(cache_entry_touch(dir, k[0]), 0);
	assert_int_equal(cache_evict(dir, 10, NULL, &left, err, sizeof(err)),
			 1);
	assert_true(present(k[0]));
	assert_false(present(k[3]));
	assert_int_equal(cache_evict(dir, 0, keep, &left, err, sizeof(err)),
			 0);
	assert_int_equal(left, 10);

	assert_int_equal(cache_evict("/nonexistent/klab", 0, NULL, NULL, err,
				     sizeof(err)), -1);
	assert_string_equal(err, "cannot list cache '/nonexistent/klab': "
			    "No such file or directory");
}

static void test_limit(void **state)
{
	assert_int_equal(cache_limit(dir, 12345), 12345);
	assert_true(cache_limit(dir, 0) > 0);
	assert_int_equal(cache_limit("/nonexistent/klab", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test_setup_teardown(test_hit_miss_corrupt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_evict_lru, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
