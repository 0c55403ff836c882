/* SPDX-License-Identifier: MIT */
/*
 * rig_conf: the configuration a rig's runs are stored under (see
 * lib/rigconf.h for the canonical text and its hash, docs/RESULTS.md for
 * the keys).  QEMU rigs: what klabd configured (kind, profile, CPUs,
 * memory, disk size and count), the -drive options qemu-rig.sh used for
 * the boot (its qemu.args) and the QEMU version.  Remote rigs: the keys
 * the config file sets, and the machine facts an upload carries.
 */
#ifndef KLAB_RIG_CONF_H
#define KLAB_RIG_CONF_H

#include <jansson.h>

struct db;
struct klabd;
struct rig;

/* The rig of section sec ("rig NAME") of d's configuration, never NULL;
 * err set (and the rig to be destroyed) when a key is invalid. */
struct rig *rig_from_config(struct klabd *d, const char *sec, char *err,
			    size_t errlen);
/* Free a rig made by rig_from_config; accepts NULL. */
void rig_destroy(struct rig *g);
/* Record the rig in the database (for pages and tokens) and create its
 * directory under the data dir; 0, or -1 with err set. */
int rig_register(struct klabd *d, struct db *db, struct rig *g, char *err,
		 size_t errlen);

/* Read `qemu-system-x86_64 --version` once, at start (before any thread
 * reads it, never under a lock), when a QEMU rig is configured; the
 * version is "" when it cannot be run. */
void rig_conf_init(struct klabd *d);
/* The canonical configuration text of g (malloc'd; d is read only for
 * a remote rig's config keys).  machine: the
 * "machine" object of an agent's upload (remote rigs), or NULL. */
char *rig_conf_text(const struct klabd *d, const struct rig *g,
		    const json_t *machine);
/* What the rigs of one class must share (rig_class_check): g's
 * configuration text without what a boot adds (the -drive options, made
 * from the profile and disk model) nor an upload's machine facts. */
char *rig_conf_class_text(const struct klabd *d, const struct rig *g);
/* conf (taken over) with suite_sha=the first 12 digits of sha256, the
 * hash of the suite text a run was handed (its agent reports it): an
 * edited suite file is a new configuration.  conf unchanged when sha256
 * is NULL or not 64 lowercase hex digits. */
char *rig_conf_with_suite(char *conf, const char *sha256);

#endif
