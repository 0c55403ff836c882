// SPDX-License-Identifier: MIT
/*
 * Every key klabd's configuration file may hold, one row each: klabd
 * refuses to start on a key or section not listed here, naming the file,
 * line and key (lib/config.c config_check).  To add a key, add its row
 * here (and document it in docs/); to add a kind of named section
 * ([base NAME]), write its rows with section "base *".
 */
#include "klabd/klabd.h"

const struct config_key klabd_config_schema[] = {
	/* global: klabd.c apply_config */
	{ "", "listen" },
	{ "", "db" },
	{ "", "data_dir" },
	{ "", "public_url" },
	{ "", "top_dir" },
	{ "", "rig_bin_dir" },
	{ "", "max_upload" },
	{ "", "fault_downloads" },
	/* HTTP limits: klabd.c http_config, docs/RIGS.md */
	{ "", "http_threads" },
	{ "", "max_connections" },
	{ "", "max_connections_per_ip" },
	{ "", "connection_timeout" },
	{ "", "header_timeout" },
	{ "", "upload_memory" },
	/* who may do what: auth.c, api_jobs.c, docs/API.md */
	{ "", "read_access" },
	{ "", "job_cmdline_allow" },
	/* import limits: api.c, docs/API.md */
	{ "", "max_import_kernels" },
	{ "", "max_import_results" },
	/* the kernel builder: build.c */
	{ "", "build_cache" },
	{ "", "build_fragment" },
	{ "", "build_must_have" },
	{ "", "build_jobs" },
	{ "", "build_time_limit" },
	{ "", "max_builds" },
	/* tracked kernel lines: track.c, docs/OPERATOR.md */
	{ "", "track_interval" },
	{ "", "alert_mail_author" },
	{ "", "build_mem_limit" },
	{ "", "build_disk_limit" },
	{ "", "build_max_procs" },
	{ "", "build_keep_trees" },
	{ "", "build_keep_warm" },
	/* alerts: alerts.c conf_read, docs/OPERATOR.md */
	{ "", "alert_smtp_url" },
	{ "", "alert_smtp_from" },
	{ "", "alert_smtp_user" },
	{ "", "alert_smtp_password" },
	{ "", "alert_smtp_starttls" },
	{ "", "alert_timeout" },
	{ "", "alert_retry_base" },
	{ "", "alert_retry_max" },
	{ "", "alert_max_attempts" },
	{ "", "alert_group_wait" },
	/* submissions' defaults: api_submissions.c, docs/OPERATOR.md */
	{ "", "submit_rigs" },
	{ "", "submit_suites" },
	{ "", "submit_max_cells" },
	/* verdict floors: judge/verdict_conf.c, docs/VERDICTS.md */
	{ "", "verdict_floor" },
	{ "suite *", "floor" },
	/* [base NAME]: build.c, docs/BUILDS.md */
	{ "base *", "dir" },
	{ "base *", "git" },
	/* a git base's commit page, for a regression alert: track.c */
	{ "base *", "commit_url" },
	/* [rig NAME]: rig_conf.c rig_from_config, docs/RIGS.md */
	{ "rig *", "kind" },
	{ "rig *", "profile" },
	{ "rig *", "cpus" },
	{ "rig *", "memory_mb" },
	{ "rig *", "disk_mb" },
	{ "rig *", "disk_model" },
	{ "rig *", "pin" },
	{ "rig *", "class" },
	{ "rig *", "boot_timeout" },
	{ "rig *", "job_timeout" },
	{ "rig *", "token" },
	{ "rig *", "base_kernel" },
	{ "rig *", "autostart" },
	{ "rig *", "power_cycle" },
	{ "rig *", "power_timeout" },
	{ "rig *", "console" },
	{ NULL, NULL }
};
