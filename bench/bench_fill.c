// SPDX-License-Identifier: MIT
/*
 * bench_fill: the data set of the page benchmark (bench/run.sh), written
 * the way kernel developers paste it: generated tiobench mails and
 * read-latency lines, parsed by klab's own importers (lib/import.h).
 *
 *   bench_fill db PATH
 *       stores, through db_import straight into the sqlite file (no HTTP,
 *       no raw outputs), on rig "default":
 *       - compare set: one tiobench mail of 10 kernels (6.1.170..6.1.179)
 *         imported 10 times (suite tiobench): 10 x 10 runs of 40 results;
 *       - history set: read-latency lines of 100 kernels (6.1.100..6.1.199)
 *         imported 100 times (suite readlat): 10,000 runs of 7 results, so
 *         readlat.lat_avg has 10,000 points.
 *       Prints the results stored and the db_import rate (parsing is done
 *       before the clock starts).
 *   bench_fill mails DIR RESULTS
 *       writes tiobench mails of 10 kernels (6.12.100..6.12.149, 40
 *       results a kernel) into DIR/fill-NNNN.txt, RESULTS results in all
 *       (rounded up to whole kernels), for bench/run.sh to POST through
 *       the API.
 *
 * Values are drawn from a fixed-seed generator around the figures of a
 * real tiobench mail, so every run stores the same numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db.h"
#include "lib/import.h"
#include "lib/rand.h"
#include "lib/strbuf.h"

#define CMP_KERNELS 10
#define CMP_REPS 10
#define HIST_KERNELS 100
#define HIST_REPS 100
#define FILL_KERNELS 50
#define TIOBENCH_PER_KERNEL 40

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_fill: %s: %s\n", what, msg);
	exit(1);
}

/* A uniform double in [0, 1), from klab's one seeded PRNG. */
static double rnd(void)
{
	uint64_t s = rng_state;
	double v = (double)(rand_xorshift64(&s) >> 11) / 9007199254740992.0;

	rng_state = s;
	return v;
}

/* v scaled by a factor in [1 - spread, 1 + spread). */
static double jitter(double v, double spread)
{
	return v * (1.0 - spread + 2.0 * spread * rnd());
}

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Per section: rate MB/s, CPU%, avg and max latency ms, CPU eff. */
static const struct {
	const char *title;
	double rate, cpu, avg, max, eff;
} sections[4] = {
	{ "Sequential Reads", 43.0, 12.9, 0.70, 1650.0, 333 },
	{ "Random Reads", 1.10, 0.97, 28.0, 455.0, 112 },
	{ "Sequential Writes", 38.0, 30.8, 0.79, 2488.0, 123 },
	{ "Random Writes", 2.00, 1.61, 0.12, 101.0, 123 },
};

/* A tiobench mail with rows for kernels prefix.first .. prefix.first+n-1. */
static void tiobench_mail(struct strbuf *sb, const char *prefix, int first,
			  int n)
{
	char id[64];
	int s, k;

	static const char tiobench_head[] =
		"                              File  Blk   Num       "
		"            Avg      Maximum      Lat%     Lat%    CPU\n"
		"Identifier                    Size  Size  Thr   Rate  "
		"(CPU%)  Latency    Latency      >2s      >10s    Eff\n"
		"---------------------------- ------ ----- ---  ------ "
		"------ --------- ----------- -------- -------- -----\n";

	sb_adds(sb, "Subject: Re: [PATCH] mq-deadline: shorter read expiry\n\n"
		"tiobench on the scsi box, 8 threads, 4 KiB blocks.\n\n");
	for (s = 0; s < 4; s++) {
		sb_addf(sb, "%s\n", sections[s].title);
		sb_adds(sb, tiobench_head);
		for (k = first; k < first + n; k++) {
			snprintf(id, sizeof(id), "%s%d", prefix, k);
			sb_addf(sb, "%-28s %6d %5d %3d %7.2f %5.2f%% %9.3f "
				"%11.2f %8.5f %8.5f %5.0f\n", id, 512, 4096, 8,
				jitter(sections[s].rate, 0.08),
				jitter(sections[s].cpu, 0.05),
				jitter(sections[s].avg, 0.08),
				jitter(sections[s].max, 0.2),
				rnd() < 0.2 ? 0.002 * rnd() : 0.0, 0.0,
				jitter(sections[s].eff, 0.03));
		}
		sb_addc(sb, '\n');
	}
	sb_adds(sb, "Thanks,\n  a kernel developer\n");
}

/* Read-latency lines of kernels prefix.first .. prefix.first+n-1. */
static void readlat_lines(struct strbuf *sb, const char *prefix, int first,
			  int n)
{
	int k;

	for (k = first; k < first + n; k++) {
		sb_addf(sb, "%s%d  reads: %.1f MB, %.2f MB/s\n", prefix, k,
			jitter(30.0, 0.1), jitter(0.41, 0.1));
		sb_addf(sb, "%s%d  read latency min 0.00 avg %.1f max %.1f "
			"> 2s %.2f%% > 10s 0.00%%\n", prefix, k,
			jitter(6.0, 0.15), jitter(4400.0, 0.3),
			rnd() < 0.3 ? 0.01 : 0.0);
	}
}

static void parse(const struct strbuf *sb, enum import_format f,
		  struct result_set *rs)
{
	struct import_error ie;
	char msg[512];

	result_set_init(rs);
	if (import_text(sb->buf, sb->len, f, NULL, rs, &ie) < 0) {
		import_error_format(&ie, msg, sizeof(msg));
		die("generated text does not import", msg);
	}
}

struct fill {
	struct db *db;
	double wall, cpu;	/* spent in db_import */
	long rows;
};

static void store(struct fill *fl, const struct result_set *rs,
		  const char *suite)
{
	struct db_import_opts o = { .rig = "default", .suite = suite };
	double w = clock_s(CLOCK_MONOTONIC);
	double c = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	char err[256];

	if (db_import(fl->db, rs, &o, NULL, NULL, err, sizeof(err)) != DB_OK)
		die("db_import", err);
	fl->wall += clock_s(CLOCK_MONOTONIC) - w;
	fl->cpu += clock_s(CLOCK_PROCESS_CPUTIME_ID) - c;
	fl->rows += (long)rs->n;
}

/* Generate and parse reps imports of one kind, then store them all. */
static void fill_kind(struct fill *fl, int tiobench, int reps)
{
	struct result_set *sets = calloc((size_t)reps, sizeof(*sets));
	struct strbuf sb = STRBUF_INIT;
	int i;

	if (!sets)
		die("memory", "out of memory");
	for (i = 0; i < reps; i++) {
		sb_reset(&sb);
		if (tiobench)
			tiobench_mail(&sb, "6.1.", 170, CMP_KERNELS);
		else
			readlat_lines(&sb, "6.1.", 100, HIST_KERNELS);
		parse(&sb, tiobench ? IMPORT_TIOBENCH : IMPORT_READLAT,
		      &sets[i]);
	}
	sb_release(&sb);
	for (i = 0; i < reps; i++) {
		store(fl, &sets[i], tiobench ? "tiobench" : "readlat");
		result_set_release(&sets[i]);
	}
	free(sets);
}

static int cmd_db(const char *path)
{
	struct fill fl = { NULL, 0, 0, 0 };
	char err[256];

	fl.db = db_open(path, err, sizeof(err));
	if (!fl.db)
		die("db_open", err);
	fill_kind(&fl, 1, CMP_REPS);
	fill_kind(&fl, 0, HIST_REPS);
	printf("fill: %ld results through db_import (%d tiobench imports "
	       "of %d kernels, %d readlat imports of %d kernels): %.3f s "
	       "wall, %.3f s cpu: %.0f rows/s (cpu %.0f)\n", fl.rows,
	       CMP_REPS, CMP_KERNELS, HIST_REPS, HIST_KERNELS, fl.wall,
	       fl.cpu, fl.rows / fl.wall, fl.rows / fl.cpu);
	printf("stored: %lld\n", (long long)db_count(fl.db, "results"));
	db_close(fl.db);
	return 0;
}

static int cmd_mails(const char *dir, const char *count)
{
	struct strbuf sb = STRBUF_INIT, path = STRBUF_INIT;
	long want, kernels, done = 0, nmail = 0, n;
	char *end;
	FILE *f;

	errno = 0;
	want = strtol(count, &end, 10);
	if (errno || *end || want < 0 || want > 10000000)
		die("invalid result count", count);
	kernels = (want + TIOBENCH_PER_KERNEL - 1) / TIOBENCH_PER_KERNEL;
	while (done < kernels) {
		n = kernels - done < 10 ? kernels - done : 10;
		sb_reset(&sb);
		tiobench_mail(&sb, "6.12.", 100 + (int)(done % FILL_KERNELS),
			      (int)n);
		sb_reset(&path);
		sb_addf(&path, "%s/fill-%04ld.txt", dir, nmail++);
		f = fopen(path.buf, "w");
		if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len || fclose(f))
			die("cannot write", path.buf);
		done += n;
	}
	printf("mails: %ld files, %ld kernels rows, %ld results\n", nmail,
	       kernels, kernels * TIOBENCH_PER_KERNEL);
	sb_release(&sb);
	sb_release(&path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "db"))
		return cmd_db(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "mails"))
		return cmd_mails(argv[2], argv[3]);
	fputs("usage: bench_fill db PATH\n"
	      "       bench_fill mails DIR RESULTS\n", stderr);
	return 2;
}
