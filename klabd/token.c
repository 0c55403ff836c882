// SPDX-License-Identifier: MIT
/*
 * klabd token add NAME --role R | list | revoke NAME: the tokens of a
 * klabd's database, made and revoked on the controller's host, never over
 * HTTP (docs/OPERATOR.md).  The secret is shown once; the database keeps
 * its hash.
 */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/tokens.h"
#include "klabd/klabd.h"
#include "klabd/token.h"
#include "lib/sha256.h"
#include "lib/rand.h"

static const char token_usage[] =
	"usage: klabd token add NAME --role submitter|operator\n"
	"       klabd token list | klabd token revoke NAME\n"
	"  (with --db PATH or --config FILE: the server's database)\n";

const char *auth_role_name(int role)
{
	switch (role) {
	case ROLE_AGENT: return "agent";
	case ROLE_SUBMITTER: return "submitter";
	case ROLE_OPERATOR: return "operator";
	default: return "";
	}
}

int auth_role_parse(const char *s)
{
	if (s && !strcmp(s, "submitter"))
		return ROLE_SUBMITTER;
	if (s && !strcmp(s, "operator"))
		return ROLE_OPERATOR;
	return -1;
}

/* Who runs `klabd token` on this host, for the audit log. */
static const char *local_user(char *buf, size_t len)
{
	struct passwd *pw = getpwuid(getuid());

	if (pw)
		snprintf(buf, len, "local:%s", pw->pw_name);
	else
		snprintf(buf, len, "local:uid %u", (unsigned)getuid());
	return buf;
}

static int token_add(struct db *db, const char *name, const char *role)
{
	char secret[AUTH_HEX_LEN + 1], hash[AUTH_HEX_LEN + 1], err[300] = "";
	char who[128];

	if (rand_hex(secret, AUTH_TOKEN_BYTES)) {
		fprintf(stderr, "klabd: cannot draw a token: %s\n",
			strerror(errno));
		return 1;
	}
	secret_hash_hex(secret, hash);
	if (db_token_add(db, name, role, hash, err, sizeof(err))) {
		fprintf(stderr, "klabd: %s\n", err);
		return 1;
	}
	db_audit_add(db, local_user(who, sizeof(who)), "operator",
		     "token add", name, role);
	/* the only time the secret is shown */
	printf("%s\n", secret);
	return 0;
}

static int token_list(struct db *db)
{
	struct db_token *v = NULL;
	size_t n = 0, i;
	char when[32];

	if (db_token_list(db, &v, &n)) {
		fprintf(stderr, "klabd: cannot list tokens\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		time_t t = (time_t)v[i].created;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M",
			 gmtime_r(&t, &tm));
		printf("%-24s %-10s %s\n", v[i].name, v[i].role, when);
	}
	db_tokens_free(v, n);
	return 0;
}

static int token_revoke(struct db *db, const char *name)
{
	int rc = db_token_revoke(db, name);
	char who[128];

	if (rc == DB_NOTFOUND)
		fprintf(stderr, "klabd: no token named '%s'\n", name);
	else if (rc)
		fprintf(stderr, "klabd: cannot revoke token '%s'\n", name);
	else
		db_audit_add(db, local_user(who, sizeof(who)), "operator",
			     "token revoke", name, "");
	return rc ? 1 : 0;
}

/* klabd token add NAME --role R | list | revoke NAME, on the database of
 * --db or of --config's "db =", without starting the server. */
int token_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "role", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dbpath = NULL, *cfgpath = NULL, *role = NULL, *v;
	struct config cfg;
	char err[512] = "";
	struct db *db = NULL;
	int c, rc = 2;

	config_init(&cfg);
	for (;;) {
		c = getopt_long(argc, argv, "d:c:r:", opts, NULL);
		if (c == -1)
			break;
		if (c == 'd')
			dbpath = optarg;
		else if (c == 'c')
			cfgpath = optarg;
		else if (c == 'r')
			role = optarg;
		else
			goto out_usage;
	}
	argc -= optind;
	argv += optind;
	if (cfgpath && config_load(&cfg, cfgpath, err, sizeof(err)))
		goto out_err;
	if (!dbpath) {
		v = config_get(&cfg, "", "db");
		dbpath = v ? v : "klab.db";
	}
	if (argc < 1 || (!strcmp(argv[0], "list") ? argc != 1 : argc != 2))
		goto out_usage;
	if (!strcmp(argv[0], "add") && auth_role_parse(role) < 0) {
		snprintf(err, sizeof(err), "invalid role '%s': expected "
			 "'submitter' or 'operator'", role ? role : "");
		goto out_err;
	}
	db = db_open(dbpath, err, sizeof(err));
	if (!db)
		goto out_err;
	klabd_db_private(dbpath);
	if (!strcmp(argv[0], "add"))
		rc = token_add(db, argv[1], role);
	else if (!strcmp(argv[0], "list"))
		rc = token_list(db);
	else if (!strcmp(argv[0], "revoke"))
		rc = token_revoke(db, argv[1]);
	else
		goto out_usage;
	goto out;
out_usage:
	fputs(token_usage, stderr);
	rc = 2;
	goto out;
out_err:
	fprintf(stderr, "klabd: %s\n", err);
	rc = 1;
out:
	db_close(db);
	config_release(&cfg);
	return rc;
}
