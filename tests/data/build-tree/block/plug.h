/* SPDX-License-Identifier: MIT */
/* Plug limits of the fake kernel tree of the build tests. */
#define MAX_REQUEST_COUNT 32
#define PLUG_FLUSH_SIZE (128 * 1024)
