// SPDX-License-Identifier: MIT
/*
 * bench_kexec_elf IN OUT: IN, a decompressed kernel (kernels/kexec-image.sh),
 * made compact into OUT as klabd makes a kexec image (lib/kexec_elf.h),
 * for bench/bench_kexec_image.sh.  Exit 0, or 1 with the reason.
 */
#include <stdio.h>

#include "lib/kexec_elf.h"
#include "lib/strbuf.h"

int main(int argc, char **argv)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	char err[300];
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: bench_kexec_elf IN OUT\n");
		return 1;
	}
	sb_init(&in);
	sb_init(&out);
	if (sb_read_file(&in, argv[1])) {
		fprintf(stderr, "bench_kexec_elf: cannot read '%s'\n", argv[1]);
		return 1;
	}
	if (kexec_elf_compact((const unsigned char *)in.buf, in.len, &out,
			      err, sizeof(err))) {
		fprintf(stderr, "bench_kexec_elf: %s: %s\n", argv[1], err);
		return 1;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out.buf, 1, out.len, f) != out.len || fclose(f)) {
		fprintf(stderr, "bench_kexec_elf: cannot write '%s'\n",
			argv[2]);
		return 1;
	}
	printf("%s: %zu bytes -> %s: %zu bytes\n", argv[1], in.len, argv[2],
	       out.len);
	sb_release(&in);
	sb_release(&out);
	return 0;
}
