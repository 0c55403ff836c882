// SPDX-License-Identifier: MIT
/*
 * Random bytes from getrandom(2), for secrets.  See rand.h.
 */
#include "rand.h"
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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
	unsigned char raw[64];

	if (nbytes > sizeof(raw)) {
		errno = EINVAL;
		return -1;
	}
	if (rand_bytes(raw, nbytes))
		return -1;
	hex_encode(raw, nbytes, hex);
	explicit_bzero(raw, sizeof(raw));	/* a secret's bytes */
	return 0;
}
