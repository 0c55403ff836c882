// SPDX-License-Identifier: MIT
/*
 * tiobench: the phase and field tables of tiobench (see tiobench.h).
 */
#include "tiobench.h"

#include <stdio.h>

const struct tiobench_phase tiobench_phases[TIOBENCH_NPHASES] = {
	[TP_SEQ_READ] = { "seq_read", "Sequential Reads", "Sequential",
			  "Reads" },
	[TP_RAND_READ] = { "rand_read", "Random Reads", "Random", "Reads" },
	[TP_SEQ_WRITE] = { "seq_write", "Sequential Writes", "Sequential",
			   "Writes" },
	[TP_RAND_WRITE] = { "rand_write", "Random Writes", "Random",
			    "Writes" },
};

const struct tiobench_field tiobench_fields[TIOBENCH_NFIELDS] = {
	[TF_FILE_SIZE] = { "file_size", "MB", DIR_NONE },
	[TF_BLK_SIZE] = { "blk_size", "B", DIR_NONE },
	[TF_THREADS] = { "threads", "", DIR_NONE },
	[TF_RATE] = { "rate", "MB/s", DIR_HIGHER },
	[TF_CPU] = { "cpu", "%", DIR_LOWER },
	[TF_AVG_LAT] = { "avg_lat", "ms", DIR_LOWER },
	[TF_MAX_LAT] = { "max_lat", "ms", DIR_LOWER },
	[TF_LAT_2S] = { "lat_2s", "%", DIR_LOWER },
	[TF_LAT_10S] = { "lat_10s", "%", DIR_LOWER },
	[TF_CPU_EFF] = { "cpu_eff", "", DIR_HIGHER },
};

void tiobench_metric(char *buf, size_t len, int phase, int field)
{
	snprintf(buf, len, "tiobench.%s.%s", tiobench_phases[phase].key,
		 tiobench_fields[field].key);
}
