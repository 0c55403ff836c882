// SPDX-License-Identifier: MIT
/*
 * What the rig manager watches, as pure functions: the console scanner
 * (panics, oopses, BUG lines and extra "Linux version" banners, line by
 * line, whatever the length of a line) and the watchdog deadlines on the
 * monotonic clock.  See rig.h; tests/unit/test_rig.c.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lab/rig.h"

void rig_scan_reset(struct rig_scan *s)
{
	s->len = 0;
	s->overlong = 0;
	s->off = 0;
	s->banners = 0;
	s->why[0] = '\0';
}

/* One whole line (or the first RIG_LINE_MAX bytes of a long one). */
static void rig_scan_line(struct rig_scan *s, const char *line, size_t len)
{
	static const char *const bad[] = { "Kernel panic", "Oops", "BUG:" };
	const char *p = line, *hit;
	size_t i, left;

	for (;;) {
		left = len - (size_t)(p - line);
		hit = memmem(p, left, "Linux version ", 14);
		if (!hit)
			break;
		s->banners++;
		p = hit + 14;
	}
	for (i = 0; i < 3 && !s->why[0]; i++) {
		hit = memmem(line, len, bad[i], strlen(bad[i]));
		if (hit)
			snprintf(s->why, sizeof(s->why), "console: %.*s",
				 (int)(len - (size_t)(hit - line) > 200 ? 200 :
				       len - (size_t)(hit - line)), hit);
	}
}

void rig_scan_feed(struct rig_scan *s, const char *buf, size_t n)
{
	const char *nl;
	size_t take;

	while (n) {
		nl = memchr(buf, '\n', n);
		take = nl ? (size_t)(nl - buf) : n;
		if (!s->overlong) {
			size_t room = sizeof(s->line) - s->len;
			size_t part = take < room ? take : room;

			memcpy(s->line + s->len, buf, part);
			s->len += part;
			if (take >= room) {
				/* full: match what we have, skip the rest */
				rig_scan_line(s, s->line, s->len);
				s->overlong = 1;
			}
		}
		if (nl) {
			if (!s->overlong)
				rig_scan_line(s, s->line, s->len);
			s->len = 0;
			s->overlong = 0;
			take++;
		}
		s->off += (long)take;
		buf += take;
		n -= take;
	}
}

void rig_scan_file(struct rig_scan *s, const char *path, size_t max)
{
	char buf[16384];
	ssize_t n;
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	while (done < max) {
		n = pread(fd, buf, sizeof(buf), s->off);
		if (n <= 0)
			break;
		rig_scan_feed(s, buf, (size_t)n);
		done += (size_t)n;
	}
	close(fd);
}

const char *rig_watchdog(const struct rig *g, long long now, char *msg,
			 size_t len)
{
	if (g->state != RIG_BOOTING && g->state != RIG_ASSIGNED &&
	    g->state != RIG_RUNNING)
		return NULL;
	if (now <= g->deadline)
		return NULL;
	snprintf(msg, len, "%s within %d s (hang)",
		 g->state == RIG_ASSIGNED ? "no kexec announced" :
		 g->state == RIG_BOOTING ? "no check-in" : "no results",
		 g->state == RIG_BOOTING ? g->boot_timeout : g->job_timeout);
	return msg;
}
