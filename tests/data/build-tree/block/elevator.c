/* SPDX-License-Identifier: MIT */
/* A stand-in for an elevator, for the fake kernel tree of the build tests. */
static const int read_expire = 500;
static const int write_expire = 5000;
static const int fifo_batch = 16;

int elevator_batch(void);

int elevator_batch(void)
{
	return fifo_batch + read_expire / 100 + write_expire / 1000;
}
