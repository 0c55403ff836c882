// SPDX-License-Identifier: MIT
/*
 * migrate: the schema of klab as numbered migrations.  migrations[i] takes
 * a database from PRAGMA user_version i to i + 1; each is applied in its
 * own BEGIN IMMEDIATE transaction together with the new user_version, so
 * two processes opening a fresh file at once cannot apply one twice.  A
 * database newer than this build is refused rather than guessed at.
 *
 * Never edit a migration that has shipped: append a new one.
 */
#include <stdio.h>
#include <string.h>

#include "db_int.h"

static const char *const migrations[] = {
	/* 1: the initial schema, the default rig and the known suites. */
	"CREATE TABLE kernels ("
	"  id INTEGER PRIMARY KEY,"
	"  ident TEXT NOT NULL UNIQUE,"
	"  version TEXT NOT NULL DEFAULT '',"
	"  base TEXT NOT NULL DEFAULT '',"
	"  patch_hash TEXT NOT NULL DEFAULT '',"
	"  config_hash TEXT NOT NULL DEFAULT '',"
	"  source TEXT NOT NULL DEFAULT '',"
	"  provenance TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL);"
	"CREATE INDEX kernels_created ON kernels(created);"
	"CREATE TABLE rigs ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  kind TEXT NOT NULL DEFAULT 'manual',"
	"  profile TEXT NOT NULL DEFAULT '',"
	"  disks INTEGER NOT NULL DEFAULT 0,"
	"  cpus INTEGER NOT NULL DEFAULT 0,"
	"  memory_mb INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'idle',"
	"  token TEXT,"
	"  created INTEGER NOT NULL);"
	"CREATE TABLE suites ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  description TEXT NOT NULL DEFAULT '');"
	"CREATE TABLE metrics ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  unit TEXT NOT NULL DEFAULT '',"
	"  direction INTEGER NOT NULL DEFAULT 0"
	"    CHECK (direction IN (0, 1, 2)));"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  rig_id INTEGER NOT NULL REFERENCES rigs(id),"
	"  suite_id INTEGER NOT NULL REFERENCES suites(id),"
	"  repetition INTEGER NOT NULL,"
	"  status TEXT NOT NULL DEFAULT 'done',"
	"  error TEXT NOT NULL DEFAULT '',"
	"  started INTEGER NOT NULL,"
	"  finished INTEGER NOT NULL,"
	"  job_id INTEGER);"
	"CREATE INDEX runs_kernel_rig_suite"
	"  ON runs(kernel_id, rig_id, suite_id, repetition);"
	"CREATE INDEX runs_finished ON runs(finished);"
	"CREATE TABLE results ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  metric_id INTEGER NOT NULL REFERENCES metrics(id),"
	"  value REAL NOT NULL);"
	"CREATE INDEX results_run ON results(run_id, metric_id, value);"
	"CREATE INDEX results_metric ON results(metric_id, run_id, value);"
	"CREATE TABLE raw_outputs ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  content BLOB NOT NULL,"
	"  UNIQUE (run_id, name));"
	"CREATE TABLE alerts ("
	"  id INTEGER PRIMARY KEY,"
	"  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  base_kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  rig_id INTEGER NOT NULL REFERENCES rigs(id),"
	"  suite_id INTEGER NOT NULL REFERENCES suites(id),"
	"  metric_id INTEGER NOT NULL REFERENCES metrics(id),"
	"  delta_pct REAL NOT NULL,"
	"  p_value REAL,"
	"  created INTEGER NOT NULL,"
	"  sent_email INTEGER NOT NULL DEFAULT 0,"
	"  sent_webhook INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX alerts_created ON alerts(created);"
	"INSERT INTO rigs (name, kind, state, created)"
	"  VALUES ('default', 'manual', 'idle',"
	" CAST(strftime('%s') AS INTEGER));"
	"INSERT INTO suites (name, description) VALUES"
	"  ('manual', 'results imported by hand, no suite run by klab'),"
	"  ('tiobench', 'tiotest threaded sequential and random read/write"
	" with latency'),"
	"  ('tiobench-under-writes', 'tiotest reads while a streaming writer"
	" fills the disk'),"
	"  ('rio-under-dbench', 'rio read latency while dbench loads the"
	" disk'),"
	"  ('iops-alldisks', 'random 4 KiB reads on every disk of the rig at"
	" once'),"
	"  ('dbench', 'dbench file server load: throughput and latency'),"
	"  ('fio', 'fio jobs: IOPS, bandwidth and completion latency'),"
	"  ('readlat', 'read latency summary: min, avg, max, share over"
	" 2 s and 10 s');",
	/* 2: the lab's job queue and kernel boot artifacts. */
	"CREATE TABLE jobs ("
	"  id INTEGER PRIMARY KEY,"
	"  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  rig_id INTEGER NOT NULL REFERENCES rigs(id),"
	"  suite_id INTEGER NOT NULL REFERENCES suites(id),"
	"  scheduler TEXT NOT NULL DEFAULT '',"
	"  cmdline TEXT NOT NULL DEFAULT '',"
	"  scale REAL NOT NULL DEFAULT 1,"
	"  state TEXT NOT NULL DEFAULT 'queued',"
	"  failure TEXT NOT NULL DEFAULT '',"
	"  error TEXT NOT NULL DEFAULT '',"
	"  console TEXT NOT NULL DEFAULT '',"
	"  output TEXT NOT NULL DEFAULT '',"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  submission_id INTEGER,"
	"  created INTEGER NOT NULL,"
	"  started INTEGER,"
	"  finished INTEGER);"
	"CREATE INDEX jobs_rig_state ON jobs(rig_id, state, id);"
	"CREATE INDEX runs_job ON runs(job_id);"
	"ALTER TABLE kernels ADD COLUMN release TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE kernels ADD COLUMN image TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE kernels ADD COLUMN modules TEXT NOT NULL DEFAULT '';",
	/* 3: kernel build requests. */
	"CREATE TABLE builds ("
	"  id INTEGER PRIMARY KEY,"
	"  ident TEXT NOT NULL DEFAULT '',"
	"  base TEXT NOT NULL,"
	"  patches TEXT NOT NULL DEFAULT '',"
	"  state TEXT NOT NULL DEFAULT 'queued',"
	"  error TEXT NOT NULL DEFAULT '',"
	"  record TEXT NOT NULL DEFAULT '',"
	"  log TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL,"
	"  finished INTEGER);"
	"CREATE INDEX builds_state ON builds(state, id);",
	/* 4: raw uploads stored once, referenced by every run they made;
	 * imports remembered by key so a retried one is not stored twice. */
	"CREATE TABLE raw_blobs ("
	"  id INTEGER PRIMARY KEY,"
	"  sha256 TEXT NOT NULL UNIQUE,"
	"  size INTEGER NOT NULL,"
	"  content BLOB NOT NULL);"
	"ALTER TABLE raw_outputs ADD COLUMN blob_id INTEGER"
	"  REFERENCES raw_blobs(id);"
	"CREATE TABLE imports ("
	"  id INTEGER PRIMARY KEY,"
	"  key TEXT NOT NULL UNIQUE,"
	"  content_sha256 TEXT NOT NULL,"
	"  created INTEGER NOT NULL);"
	"ALTER TABLE runs ADD COLUMN import_id INTEGER REFERENCES imports(id);"
	"CREATE INDEX runs_import ON runs(import_id);",
	/* 5: user tokens kept as
	 * hashes, the audit log, and rig tokens no longer kept in clear
	 * (klabd stores their hashes again at start). */
	"CREATE TABLE tokens ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE,"
	"  role TEXT NOT NULL CHECK (role IN ('submitter', 'operator')),"
	"  hash TEXT NOT NULL UNIQUE,"
	"  created INTEGER NOT NULL);"
	"CREATE TABLE audit ("
	"  id INTEGER PRIMARY KEY,"
	"  at INTEGER NOT NULL,"
	"  who TEXT NOT NULL,"
	"  role TEXT NOT NULL DEFAULT '',"
	"  action TEXT NOT NULL,"
	"  subject TEXT NOT NULL DEFAULT '',"
	"  detail TEXT NOT NULL DEFAULT '');"
	"UPDATE rigs SET token = NULL;",
	/* 6: comparison runs with adaptive repetition
	 * (flow/comparisons.c): the comparison, its plan and the
	 * decisions carried between looks, and the jobs that are its
	 * cells (side 0 the base, 1 the candidate). */
	"CREATE TABLE comparisons ("
	"  id INTEGER PRIMARY KEY,"
	"  base TEXT NOT NULL,"
	"  candidate TEXT NOT NULL,"
	"  rig TEXT NOT NULL,"
	"  suite TEXT NOT NULL,"
	"  scheduler TEXT NOT NULL DEFAULT '',"
	"  scale REAL NOT NULL DEFAULT 1,"
	"  cmdline TEXT NOT NULL DEFAULT '',"
	"  floors TEXT NOT NULL DEFAULT '',"
	"  max_cells INTEGER NOT NULL,"
	"  max_seconds REAL NOT NULL,"
	"  stop_on_worse INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued',"
	"    'running', 'decided', 'undecided', 'failed')),"
	"  planned INTEGER NOT NULL,"
	"  decided TEXT NOT NULL DEFAULT '',"
	"  open INTEGER NOT NULL DEFAULT 0,"
	"  error TEXT NOT NULL DEFAULT '',"
	"  who TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL,"
	"  finished INTEGER);"
	"CREATE INDEX comparisons_state ON comparisons(state);"
	"CREATE TABLE comparison_jobs ("
	"  comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
	"  job_id INTEGER NOT NULL UNIQUE REFERENCES jobs(id),"
	"  side INTEGER NOT NULL CHECK (side IN (0, 1)),"
	"  PRIMARY KEY (comparison_id, job_id));",
	/* 7: the rig's configuration each run was made under, as a
	 * canonical text and its short hash (lib/rigconf.h); '' for runs
	 * stored before it was recorded. */
	"ALTER TABLE runs ADD COLUMN rigconf TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE runs ADD COLUMN rigconf_hash TEXT NOT NULL DEFAULT '';",
	/* 8 (issue 11): change points found on the history of each rig x
	 * suite x metric (db_changepoints.c), kept once seen so each is
	 * alerted once (current 0: no longer found); and the Debian kernel
	 * lines klabd tracks (db_track.c). */
	"CREATE TABLE changepoints ("
	"  id INTEGER PRIMARY KEY,"
	"  rig_id INTEGER NOT NULL REFERENCES rigs(id),"
	"  suite_id INTEGER NOT NULL REFERENCES suites(id),"
	"  metric_id INTEGER NOT NULL REFERENCES metrics(id),"
	"  kernel_before TEXT NOT NULL,"
	"  kernel_after TEXT NOT NULL,"
	"  run_after INTEGER NOT NULL,"
	"  position INTEGER NOT NULL,"
	"  mean_before REAL NOT NULL,"
	"  mean_after REAL NOT NULL,"
	"  size_pct REAL NOT NULL,"
	"  p_value REAL NOT NULL,"
	"  current INTEGER NOT NULL DEFAULT 1,"
	"  first_seen INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL,"
	"  UNIQUE (rig_id, suite_id, metric_id, kernel_after));"
	"CREATE TABLE tracks ("
	"  id INTEGER PRIMARY KEY,"
	"  distro TEXT NOT NULL,"
	"  line TEXT NOT NULL,"
	"  rigs TEXT NOT NULL,"
	"  suite TEXT NOT NULL,"
	"  last_package TEXT NOT NULL DEFAULT '',"
	"  last_kernel TEXT NOT NULL DEFAULT '',"
	"  checks INTEGER NOT NULL DEFAULT 0,"
	"  last_check INTEGER NOT NULL DEFAULT 0,"
	"  last_error TEXT NOT NULL DEFAULT '',"
	"  jobs INTEGER NOT NULL DEFAULT 0,"
	"  who TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL,"
	"  UNIQUE (distro, line, rigs, suite));",
	/* 9: alerts (flow/alerts.c, db/alerts.h): subscriptions
	 * (a channel and a filter), the events (one per kind and dedup key:
	 * the same change alerts once) and the outbox of deliveries, one
	 * per event and subscription, with its attempts.  The unused
	 * 'alerts' table of migration 1 stays as it is. */
	"CREATE TABLE alert_subscriptions ("
	"  id INTEGER PRIMARY KEY,"
	"  channel TEXT NOT NULL CHECK (channel IN ('email', 'webhook',"
	"    'feed')),"
	"  target TEXT NOT NULL DEFAULT '',"
	"  secret TEXT NOT NULL DEFAULT '',"
	"  rig TEXT NOT NULL DEFAULT '',"
	"  suite TEXT NOT NULL DEFAULT '',"
	"  metric TEXT NOT NULL DEFAULT '',"
	"  submitter TEXT NOT NULL DEFAULT '',"
	"  events TEXT NOT NULL DEFAULT '',"
	"  owner TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL);"
	"CREATE TABLE alert_events ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  rig TEXT NOT NULL DEFAULT '',"
	"  suite TEXT NOT NULL DEFAULT '',"
	"  metric TEXT NOT NULL DEFAULT '',"
	"  submitter TEXT NOT NULL DEFAULT '',"
	"  title TEXT NOT NULL DEFAULT '',"
	"  text TEXT NOT NULL DEFAULT '',"
	"  link TEXT NOT NULL DEFAULT '',"
	"  dedup TEXT,"
	"  created INTEGER NOT NULL,"
	"  UNIQUE (kind, dedup));"
	"CREATE INDEX alert_events_created ON alert_events(created);"
	"CREATE TABLE alert_outbox ("
	"  id INTEGER PRIMARY KEY,"
	"  event_id INTEGER NOT NULL REFERENCES alert_events(id),"
	"  subscription_id INTEGER NOT NULL,"
	"  channel TEXT NOT NULL,"
	"  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending',"
	"    'delivered', 'failed', 'cancelled')),"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  next_at INTEGER NOT NULL,"
	"  last_error TEXT NOT NULL DEFAULT '',"
	"  delivered INTEGER,"
	"  created INTEGER NOT NULL,"
	"  UNIQUE (event_id, subscription_id));"
	"CREATE INDEX alert_outbox_due ON alert_outbox(state, next_at);"
	"CREATE INDEX alert_outbox_sub ON alert_outbox(subscription_id);",
	/* 10 (issue 9): each repetition inside a cell as its own sample of
	 * the run (db/reps.h); the run's results stay their mean. */
	"CREATE TABLE run_reps ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  rep INTEGER NOT NULL CHECK (rep >= 1),"
	"  metric_id INTEGER NOT NULL REFERENCES metrics(id),"
	"  value REAL NOT NULL,"
	"  complete INTEGER NOT NULL DEFAULT 1,"
	"  PRIMARY KEY (run_id, metric_id, rep));",
	/* 11: patch submissions (flow/submissions.c): the request,
	 * its patches with their subjects, the log of its stages and its
	 * cells (one comparison run per rig x suite). */
	"CREATE TABLE submissions ("
	"  id INTEGER PRIMARY KEY,"
	"  base TEXT NOT NULL,"
	"  files TEXT NOT NULL DEFAULT '',"
	"  rigs TEXT NOT NULL,"
	"  suites TEXT NOT NULL,"
	"  note TEXT NOT NULL DEFAULT '',"
	"  who TEXT NOT NULL DEFAULT '',"
	"  max_cells INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running',"
	"    'finished', 'failed', 'cancelled')),"
	"  stage TEXT NOT NULL DEFAULT 'build',"
	"  verdict TEXT NOT NULL DEFAULT '',"
	"  error TEXT NOT NULL DEFAULT '',"
	"  build_base INTEGER REFERENCES builds(id),"
	"  build_patched INTEGER REFERENCES builds(id),"
	"  kernel_base TEXT NOT NULL DEFAULT '',"
	"  kernel_patched TEXT NOT NULL DEFAULT '',"
	"  report TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL,"
	"  finished INTEGER);"
	"CREATE INDEX submissions_state ON submissions(state, id);"
	"CREATE TABLE submission_patches ("
	"  submission_id INTEGER NOT NULL REFERENCES submissions(id),"
	"  seq INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  subject TEXT NOT NULL DEFAULT '',"
	"  PRIMARY KEY (submission_id, seq));"
	"CREATE TABLE submission_stages ("
	"  id INTEGER PRIMARY KEY,"
	"  submission_id INTEGER NOT NULL REFERENCES submissions(id),"
	"  stage TEXT NOT NULL,"
	"  state TEXT NOT NULL DEFAULT 'running',"
	"  log TEXT NOT NULL DEFAULT '',"
	"  started INTEGER NOT NULL,"
	"  finished INTEGER);"
	"CREATE INDEX submission_stages_sub"
	" ON submission_stages(submission_id);"
	"CREATE TABLE submission_cells ("
	"  submission_id INTEGER NOT NULL REFERENCES submissions(id),"
	"  comparison_id INTEGER NOT NULL UNIQUE REFERENCES comparisons(id),"
	"  rig TEXT NOT NULL,"
	"  suite TEXT NOT NULL,"
	"  PRIMARY KEY (submission_id, rig, suite));",
	/* 12 (issue 12): bisections (flow/bisect.c): the request,
	 * its candidates 0 (good end) .. N (bad end) and its steps, each
	 * a build or a fetch and a comparison run with its mark. */
	"CREATE TABLE bisections ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('series', 'debian', 'git')),"
	"  base TEXT NOT NULL DEFAULT '',"
	"  good TEXT NOT NULL DEFAULT '',"
	"  bad TEXT NOT NULL DEFAULT '',"
	"  rig TEXT NOT NULL,"
	"  suite TEXT NOT NULL,"
	"  metrics TEXT NOT NULL,"
	"  max_cells INTEGER NOT NULL,"
	"  state TEXT NOT NULL DEFAULT 'running' CHECK (state IN ('running',"
	"    'finished', 'failed')),"
	"  phase TEXT NOT NULL DEFAULT 'verify',"
	"  answer INTEGER NOT NULL DEFAULT -1,"
	"  outcome TEXT NOT NULL DEFAULT '',"
	"  report TEXT NOT NULL DEFAULT '',"
	"  error TEXT NOT NULL DEFAULT '',"
	"  who TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL,"
	"  finished INTEGER);"
	"CREATE INDEX bisections_state ON bisections(state, id);"
	"CREATE TABLE bisection_candidates ("
	"  bisection_id INTEGER NOT NULL REFERENCES bisections(id),"
	"  idx INTEGER NOT NULL,"
	"  label TEXT NOT NULL,"
	"  subject TEXT NOT NULL DEFAULT '',"
	"  author TEXT NOT NULL DEFAULT '',"
	"  file TEXT NOT NULL DEFAULT '',"
	"  kernel TEXT NOT NULL DEFAULT '',"
	"  build_id INTEGER NOT NULL DEFAULT 0,"
	"  PRIMARY KEY (bisection_id, idx));"
	"CREATE TABLE bisection_steps ("
	"  id INTEGER PRIMARY KEY,"
	"  bisection_id INTEGER NOT NULL REFERENCES bisections(id),"
	"  idx INTEGER NOT NULL,"
	"  purpose TEXT NOT NULL,"
	"  build_id INTEGER NOT NULL DEFAULT 0,"
	"  kernel TEXT NOT NULL DEFAULT '',"
	"  comparison_id INTEGER NOT NULL DEFAULT 0,"
	"  mark TEXT NOT NULL DEFAULT '',"
	"  reason TEXT NOT NULL DEFAULT '',"
	"  delta TEXT NOT NULL DEFAULT '',"
	"  cells INTEGER NOT NULL DEFAULT 0,"
	"  created INTEGER NOT NULL,"
	"  finished INTEGER);"
	"CREATE INDEX bisection_steps_bis"
	" ON bisection_steps(bisection_id, id);",
	/* 13 (issue 12, git bisections): git's own estimate of the steps
	 * left ("roughly K steps"), -1 where git does not choose them. */
	"ALTER TABLE bisections ADD COLUMN steps_hint INTEGER NOT NULL "
	"DEFAULT -1;",
	/* 14: a bisection's job configuration, given to every step's
	 * comparison: scale, scheduler, extra kernel parameters; older
	 * bisections ran at 1 with the rig's defaults. */
	"ALTER TABLE bisections ADD COLUMN scale REAL NOT NULL DEFAULT 1;"
	"ALTER TABLE bisections ADD COLUMN scheduler TEXT NOT NULL "
	"DEFAULT '';"
	"ALTER TABLE bisections ADD COLUMN cmdline TEXT NOT NULL "
	"DEFAULT '';",
	/* 15: a submission's job configuration, given to every cell of its
	 * comparisons, as a bisection's (14); older submissions ran at 1
	 * with the rig's defaults. */
	"ALTER TABLE submissions ADD COLUMN scale REAL NOT NULL DEFAULT 1;"
	"ALTER TABLE submissions ADD COLUMN scheduler TEXT NOT NULL "
	"DEFAULT '';"
	"ALTER TABLE submissions ADD COLUMN cmdline TEXT NOT NULL "
	"DEFAULT '';",
	/* 16 (issue 12): a comparison's base cells borrowed from earlier
	 * comparisons (a bisection step reuses the good end's cells of the
	 * steps before it); they count as done cells of side 0. */
	"CREATE TABLE comparison_borrowed ("
	"  comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
	"  job_id INTEGER NOT NULL REFERENCES jobs(id),"
	"  PRIMARY KEY (comparison_id, job_id));",
	/* 17: jobs.submission_id was never set: a submission's cells are
	 * its comparisons' jobs (submission_cells, comparison_jobs), the
	 * one home of that fact. */
	"ALTER TABLE jobs DROP COLUMN submission_id;",
	/* 18 (issue 29): a kernel a build made knows its build key, and a
	 * build who asked for it and whether it may replace another's
	 * kernel: an ident is never taken over but by the same build key,
	 * an operator or the lab. */
	"ALTER TABLE kernels ADD COLUMN build_key TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE builds ADD COLUMN owner TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE builds ADD COLUMN may_replace INTEGER NOT NULL "
	"DEFAULT 0;",
	/* 19 (issue 30): a comparison's decisions stored once, as rows: one
	 * a metric, written at each look (flow/comparisons.c) with the
	 * figures the verdict rests on, read by every view.  A decision
	 * (worse, better, same) is final.  The "METRIC VERDICT" lines of
	 * comparisons.decided become final rows without figures (look 0),
	 * and the column goes. */
	"CREATE TABLE comparison_decisions ("
	"  comparison_id INTEGER NOT NULL REFERENCES comparisons(id),"
	"  metric TEXT NOT NULL,"
	"  verdict TEXT NOT NULL,"
	"  final INTEGER NOT NULL DEFAULT 0,"
	"  look INTEGER NOT NULL DEFAULT 0,"
	"  note TEXT NOT NULL DEFAULT '',"
	"  analysis TEXT NOT NULL DEFAULT '',"
	"  tested INTEGER NOT NULL DEFAULT 0,"
	"  n_base INTEGER NOT NULL DEFAULT 0,"
	"  n_cand INTEGER NOT NULL DEFAULT 0,"
	"  delta_pct REAL, ci_lo REAL, ci_hi REAL, p REAL, p_adj REAL,"
	"  threshold_pct REAL, floor_pct REAL, noise_pct REAL, sd_pct REAL,"
	"  PRIMARY KEY (comparison_id, metric));"
	"WITH RECURSIVE line(id, l, rest) AS ("
	"  SELECT id, '', decided || char(10) FROM comparisons"
	"  WHERE decided != ''"
	"  UNION ALL"
	"  SELECT id, substr(rest, 1, instr(rest, char(10)) - 1),"
	"    substr(rest, instr(rest, char(10)) + 1) FROM line"
	"  WHERE rest != '')"
	"INSERT OR IGNORE INTO comparison_decisions (comparison_id, metric,"
	"  verdict, final)"
	"  SELECT id, substr(l, 1, instr(l, ' ') - 1),"
	"    substr(l, instr(l, ' ') + 1), 1 FROM line"
	"  WHERE instr(l, ' ') > 1 AND substr(l, instr(l, ' ') + 1)"
	"    IN ('worse', 'better', 'same');"
	"ALTER TABLE comparisons DROP COLUMN decided;",
	/* 20 (issue 30): latency histograms as numbers, one row per run and
	 * phase with its buckets packed (db/db_hist.c), read by pages
	 * without parsing JSON; the raw outputs "hist/<phase>.json" move
	 * into it (db_hist_migrate, below). */
	"CREATE TABLE run_hists ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  phase TEXT NOT NULL,"
	"  buckets BLOB NOT NULL,"
	"  PRIMARY KEY (run_id, phase));",
	/* 21 (issue 32): alerts people triage (flow/alerts_triage.c).  Every
	 * event has a state (new, acknowledged, invalid, fixed by a commit or
	 * a kernel, duplicate of another, closed by klab when a fixed
	 * metric is back to its level), an assignee and a log of who did
	 * what (alert_log: comments, state changes, assignments); the line,
	 * the pair of kernels and the group key of the change it is about,
	 * and its group (the id of the group's first event).  An
	 * alert_state event (a notice of a state change) names the alert it
	 * is about and carries the state it went to.  Existing events are
	 * new, each its own group. */
	"ALTER TABLE alert_events ADD COLUMN state TEXT NOT NULL DEFAULT "
	"'new' CHECK (state IN ('new', 'acknowledged', 'invalid', 'fixed',"
	" 'duplicate', 'closed'));"
	"ALTER TABLE alert_events ADD COLUMN assignee TEXT NOT NULL "
	"DEFAULT '';"
	"ALTER TABLE alert_events ADD COLUMN fixed_commit TEXT NOT NULL "
	"DEFAULT '';"
	"ALTER TABLE alert_events ADD COLUMN fixed_kernel TEXT NOT NULL "
	"DEFAULT '';"
	"ALTER TABLE alert_events ADD COLUMN duplicate_of INTEGER NOT NULL "
	"DEFAULT 0;"
	"ALTER TABLE alert_events ADD COLUMN line TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE alert_events ADD COLUMN kernel_before TEXT NOT NULL "
	"DEFAULT '';"
	"ALTER TABLE alert_events ADD COLUMN kernel_after TEXT NOT NULL "
	"DEFAULT '';"
	"ALTER TABLE alert_events ADD COLUMN group_key TEXT NOT NULL "
	"DEFAULT '';"
	"ALTER TABLE alert_events ADD COLUMN group_id INTEGER NOT NULL "
	"DEFAULT 0;"
	"ALTER TABLE alert_events ADD COLUMN about INTEGER NOT NULL "
	"DEFAULT 0;"
	"ALTER TABLE alert_events ADD COLUMN updated INTEGER NOT NULL "
	"DEFAULT 0;"
	"UPDATE alert_events SET group_id = id, updated = created;"
	"CREATE INDEX alert_events_group ON alert_events(group_key);"
	"CREATE INDEX alert_events_gid ON alert_events(group_id);"
	"CREATE INDEX alert_events_state ON alert_events(state, rig, suite,"
	" metric);"
	"CREATE TABLE alert_log ("
	"  id INTEGER PRIMARY KEY,"
	"  event_id INTEGER NOT NULL REFERENCES alert_events(id),"
	"  who TEXT NOT NULL,"
	"  action TEXT NOT NULL CHECK (action IN ('comment', 'state',"
	"    'assign')),"
	"  state TEXT NOT NULL DEFAULT '',"
	"  text TEXT NOT NULL DEFAULT '',"
	"  notice INTEGER NOT NULL DEFAULT 0,"
	"  created INTEGER NOT NULL);"
	"CREATE INDEX alert_log_event ON alert_log(event_id, id);",
	/* 22 (issue 31): where a cell's time went, one row per step of a
	 * job in the order the steps ran: klabd's own (hand-out, boot,
	 * upload) and those of the agent's upload (docs/RESULTS.md,
	 * db_job_steps.c). */
	"CREATE TABLE job_steps ("
	"  job_id INTEGER NOT NULL REFERENCES jobs(id),"
	"  seq INTEGER NOT NULL,"
	"  rep INTEGER NOT NULL DEFAULT 0,"
	"  name TEXT NOT NULL,"
	"  secs REAL NOT NULL,"
	"  PRIMARY KEY (job_id, seq));",
	/* 23 (issue 31): rig pools.  A configured rig's class (its own name
	 * unless its section names one), written from the configuration at
	 * start ('' for rigs klabd does not drive: the name alone); a job
	 * queued for a class (jobs.class, '' : for its rig alone) goes to
	 * whichever rig of the class takes it first, which then becomes its
	 * rig_id (until then rig_id is the class's first rig). */
	"ALTER TABLE rigs ADD COLUMN class TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE jobs ADD COLUMN class TEXT NOT NULL DEFAULT '';"
	"CREATE INDEX rigs_class ON rigs(class);"
	"CREATE INDEX jobs_class_state ON jobs(class, state, id);",
	/* 24 (issue 32): tracked git branches (flow/track_git.c).  A track
	 * is a Debian line (distro 'debian') or a git branch (distro 'git',
	 * line 'NAME/BRANCH' of a [base NAME] git = PATH, base and branch
	 * apart); a git line's state, its backlog (commits not tested) and
	 * the cap of its comparisons.  Each head of a git line that klab
	 * tested or is testing is a row of track_heads, in the order tested:
	 * the line's history.  A head is built, then compared against the
	 * head tested before it (prev) on each rig x suite; a worse verdict
	 * starts one bisection over prev..head (bisection). */
	"ALTER TABLE tracks ADD COLUMN base TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE tracks ADD COLUMN branch TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE tracks ADD COLUMN state TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE tracks ADD COLUMN backlog INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE tracks ADD COLUMN max_cells INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE track_heads ("
	"  id INTEGER PRIMARY KEY,"
	"  track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,"
	"  hash TEXT NOT NULL,"
	"  subject TEXT NOT NULL DEFAULT '',"
	"  author TEXT NOT NULL DEFAULT '',"
	"  kernel TEXT NOT NULL DEFAULT '',"
	"  build_id INTEGER NOT NULL DEFAULT 0,"
	"  prev_id INTEGER NOT NULL DEFAULT 0,"
	"  skipped INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL DEFAULT 'building' CHECK (state IN"
	"    ('building', 'comparing', 'tested', 'failed')),"
	"  verdict TEXT NOT NULL DEFAULT '',"
	"  worse TEXT NOT NULL DEFAULT '',"
	"  comparisons TEXT NOT NULL DEFAULT '',"
	"  bisection_id INTEGER NOT NULL DEFAULT 0,"
	"  error TEXT NOT NULL DEFAULT '',"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL,"
	"  UNIQUE (track_id, hash));"
	"CREATE INDEX track_heads_kernel ON track_heads(kernel);"
	"CREATE INDEX track_heads_bisection ON track_heads(bisection_id);",
	/* 25 (issue 32): the scale of a tracked line's cells (the job
	 * configuration's, as a submission's --scale), 1 by default: a
	 * lab's cells run small to be many. */
	"ALTER TABLE tracks ADD COLUMN scale REAL NOT NULL DEFAULT 1;",
};

/* What a migration moves that its SQL cannot: run after the SQL of its
 * number, in the same transaction. */
static const struct {
	int v;
	int (*move)(struct db *db);
} migration_code[] = {
	{ 20, db_hist_migrate },
};

#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

int db_schema_version(void)
{
	return NMIGRATIONS;
}

/* Apply migration number v (1-based) unless another process has. */
static int migrate_one(struct db *db, int v, char *err, size_t errlen)
{
	char pragma[64];
	size_t i;
	int cur;

	if (db_begin(db) != DB_OK)
		return db_sqlerr(db, err, errlen);
	cur = db_user_version(db);
	if (cur < 0)
		goto out_rollback;
	if (cur >= v) {		/* someone else got there first */
		db_rollback(db);
		return DB_OK;
	}
	if (sqlite3_exec(db->h, migrations[v - 1], NULL, NULL, NULL) !=
	    SQLITE_OK)
		goto out_rollback;
	for (i = 0; i < sizeof(migration_code) / sizeof(*migration_code); i++)
		if (migration_code[i].v == v &&
		    migration_code[i].move(db) != DB_OK)
			goto out_rollback;
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v);
	if (sqlite3_exec(db->h, pragma, NULL, NULL, NULL) != SQLITE_OK)
		goto out_rollback;
	if (db_commit(db) != DB_OK)
		return db_sqlerr(db, err, errlen);
	return DB_OK;

out_rollback:
	db_seterr(err, errlen, DB_ERR, "cannot apply migration %d: %s", v,
		  sqlite3_errmsg(db->h));
	db_rollback(db);
	return DB_ERR;
}

int db_migrate(struct db *db, char *err, size_t errlen)
{
	int v = db_user_version(db);

	if (v < 0)
		return db_sqlerr(db, err, errlen);
	if (v > NMIGRATIONS)
		return db_seterr(err, errlen, DB_ERR,
				 "database '%s' has schema version %d, newer "
				 "than this klab knows (%d): upgrade klab",
				 db->path, v, NMIGRATIONS);
	for (v = v + 1; v <= NMIGRATIONS; v++) {
		if (migrate_one(db, v, err, errlen) != DB_OK)
			return DB_ERR;
	}
	return DB_OK;
}
