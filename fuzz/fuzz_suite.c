// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for workloads/suite.c, the reader of suite files
 * (docs/SUITES.md).  The agent writes a job's "suite_text" from klabd to a
 * file and klab-run reads it with suite_load, so the text is outside
 * input.  The input goes to an in-memory file (memfd) read through its
 * /proc path; a failure must name the file, a success must have the keys
 * klab-run relies on, and every command expands (suite_expand) either to
 * a string or to an error, at a fuzzed scale, with no placeholder left.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workloads/suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void suite_check_expand(const char *cmd, double scale)
{
	struct suite_vars v = {
		.scale = scale, .disk = "/dev/sda",
		.disks = "/dev/sda,/dev/sdb", .id = "6.1.0", .ncpu = 2,
	};
	char err[512] = "", *out;

	if (!cmd)
		return;
	out = suite_expand(cmd, &v, err, sizeof(err));
	if (!out) {
		if (!err[0] || !memchr(err, 0, sizeof(err)))
			abort();
		return;
	}
	/* every '{' of the input was a placeholder: none survives */
	if (strchr(out, '{') && !strchr(cmd, '{'))
		abort();
	free(out);
}

static void suite_check(const struct suite *s, double scale)
{
	if (!s->name || !s->workload || !s->timeout ||
	    !s->background_warmup || s->repetitions < 1 ||
	    s->repetitions > 1000)
		abort();
	if (s->filesystem && strcmp(s->filesystem, "ext4"))
		abort();
	suite_check_expand(s->workload, scale);
	suite_check_expand(s->warmup, scale);
	suite_check_expand(s->background, scale);
	suite_check_expand(s->background_warmup, scale);
	suite_check_expand(s->timeout, scale);
	suite_check_expand(s->disk_mb, scale);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double scales[] = { 1.0, 0.05, 0.0, 1e300, 3.5 };
	struct suite s;
	char path[64], err[600] = "";
	int fd;

	fd = memfd_create("fuzz.suite", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (suite_load(&s, path, err, sizeof(err))) {
		if (!strstr(err, path))
			abort();
	} else {
		suite_check(&s, scales[size % 5]);
	}
	suite_release(&s);
	close(fd);
	return 0;
}
