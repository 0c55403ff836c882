/* SPDX-License-Identifier: MIT */
/*
 * tiobench: the one home of tiobench's vocabulary.  Its four phases (in
 * tiobench.pl's section order, with the section titles kernel developers
 * paste into mail) and the ten fields of a table row (metric suffix, unit
 * and the direction in which a value is better).  A tiobench metric is
 * "tiobench.<phase>.<field>": "tiobench.rand_read.max_lat".
 *
 * Used by the importer (lib/import_tiobench.c), the tiotest workload and
 * its text report (workloads/), and the pages and text report (web/).
 */
#ifndef KLAB_TIOBENCH_H
#define KLAB_TIOBENCH_H

#include <stddef.h>

#include "results.h"

enum tiobench_phase_id {
	TP_SEQ_READ, TP_RAND_READ, TP_SEQ_WRITE, TP_RAND_WRITE,
	TIOBENCH_NPHASES
};

struct tiobench_phase {
	const char *key;	/* "seq_read" */
	const char *title;	/* "Sequential Reads" */
	const char *w1, *w2;	/* the title's two words */
};

/* In a row's column order, after the Identifier column. */
enum tiobench_field_id {
	TF_FILE_SIZE, TF_BLK_SIZE, TF_THREADS, TF_RATE, TF_CPU, TF_AVG_LAT,
	TF_MAX_LAT, TF_LAT_2S, TF_LAT_10S, TF_CPU_EFF, TIOBENCH_NFIELDS
};

struct tiobench_field {
	const char *key;	/* "rate" */
	const char *unit;	/* "MB/s" */
	enum metric_dir dir;
};

extern const struct tiobench_phase tiobench_phases[TIOBENCH_NPHASES];
extern const struct tiobench_field tiobench_fields[TIOBENCH_NFIELDS];

/* "tiobench.<phase>.<field>" into buf (truncated to len). */
void tiobench_metric(char *buf, size_t len, int phase, int field);

#endif
