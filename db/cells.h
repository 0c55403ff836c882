/* SPDX-License-Identifier: MIT */
/*
 * cells: what a comparison needs to know about the runs of its kernels
 * before it reads their samples: each run's rig, suite and status, and
 * the configuration of the job that made it (scale, scheduler, command
 * line) and of the rig (lib/rigconf.h), in one indexed query per
 * kernel.  judge/compare.c uses it to refuse pooling rigs, suites, job
 * configurations and rig configurations and to leave out
 * runs that are not "done".
 */
#ifndef KLAB_DB_CELLS_H
#define KLAB_DB_CELLS_H

#include <stdint.h>

#include "db.h"

struct db_cell_run {
	int64_t id;
	char *rig, *suite, *status;
	int64_t job_id;		/* 0: imported, no job */
	double scale;		/* the job's; 0 without a job */
	char *scheduler, *cmdline;	/* the job's; "" without a job */
	char *rigconf, *rigconf_hash;	/* the rig's; "" when not recorded */
};

/* The runs of each named kernel (unknown kernels have none) on rig x
 * suite (NULL: any), appended to *out in kernel order. */
int db_cell_runs(struct db *db, const char *const *kernels, size_t nk,
		 const char *rig, const char *suite,
		 struct db_cell_run **out, size_t *n);
void db_cell_runs_free(struct db_cell_run *v, size_t n);

#endif
