/* SPDX-License-Identifier: MIT */
/*
 * catalog_int: the catalog's state, shared by its two files and nobody
 * else: the table of files served to agents (catalog.c, under cat_lock)
 * and the boot files' table with its thread (catalog_prep.c, under
 * image_lock).  Neither lock is held across slow work or with the other.
 */
#ifndef KLAB_CATALOG_INT_H
#define KLAB_CATALOG_INT_H

#include <pthread.h>
#include <stddef.h>

struct cat_file {
	char sha[65];
	char *path;
	long long size;		/* of the file when hashed */
	long long mtime;
	char **rigs;		/* the rigs that may download it */
	size_t nrigs, arigs;
};

struct catalog {
	pthread_mutex_t cat_lock;	/* files */
	struct cat_file *files;		/* sha256 -> path, for downloads */
	size_t nfiles;
	pthread_mutex_t image_lock;	/* prep's table, nothing slow */
	struct cat_prep *prep;		/* catalog_prep.c: its thread, table */
	char *base_image;		/* rig base initramfs (prep's thread) */
};

#endif
