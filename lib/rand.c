// SPDX-License-Identifier: MIT
/*
 * Random bytes from getrandom(2), for secrets.  See rand.h.
 */
#include "rand.h"

#include <errno.h>
#include <stdio.h>
#include <sys/random.h>

int rand_bytes(void *buf, size_t len)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = getrandom(p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int rand_hex(char *hex, size_t nbytes)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char raw[64];
	size_t i;

	if (nbytes > sizeof(raw)) {
		errno = EINVAL;
		return -1;
	}
	if (rand_bytes(raw, nbytes))
		return -1;
	for (i = 0; i < nbytes; i++) {
		hex[2 * i] = digits[raw[i] >> 4];
		hex[2 * i + 1] = digits[raw[i] & 15];
	}
	hex[2 * nbytes] = '\0';
	return 0;
}
