// SPDX-License-Identifier: MIT
/*
 * Exclusive lock files (lockfile.h): flock, then the pid for whoever
 * finds it taken.
 */
#include "lockfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* The pid written in the lock file at fd, 0 when there is none. */
static long lockfile_pid(int fd)
{
	char buf[32], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	pid = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || pid <= 0)
		return 0;
	return pid;
}

int lockfile_take(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	char pid[32];
	long holder;
	int n;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open lock file '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		holder = e == EWOULDBLOCK ? lockfile_pid(fd) : 0;
		if (holder)
			snprintf(err, errlen, "'%s' is locked by pid %ld", path,
				 holder);
		else if (e == EWOULDBLOCK)
			snprintf(err, errlen, "'%s' is locked by another "
				 "process", path);
		else
			snprintf(err, errlen, "cannot lock '%s': %s", path,
				 strerror(e));
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		snprintf(err, errlen, "cannot write lock file '%s': %s", path,
			 strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}
