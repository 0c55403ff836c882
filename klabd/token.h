/* SPDX-License-Identifier: MIT */
/*
 * token: what a token is.  A user's token is a secret of AUTH_TOKEN_BYTES
 * random bytes, shown once as hex and stored as its SHA-256 (db/tokens.h),
 * with a role; a rig's token is the rig's own (lab/rig.h).  `klabd token`
 * (token.c) makes and revokes them on the controller's host; http/auth.c
 * checks them on every request, against the role a route needs.
 */
#ifndef KLAB_TOKEN_H
#define KLAB_TOKEN_H

enum auth_role {
	ROLE_OPEN,		/* anyone: health, the login page */
	ROLE_READ,		/* anyone, or any token with
				 * read_access=token */
	ROLE_AGENT,		/* a rig's own token */
	ROLE_SUBMITTER,		/* submit, import, build, queue jobs */
	ROLE_OPERATOR,		/* also rigs, kernels, suites, audit */
};

#define AUTH_TOKEN_BYTES 32	/* 256-bit secrets */
#define AUTH_HEX_LEN 64		/* their hex form, without the NUL */

/* The name a role is logged under (agent, submitter, operator; "" for
 * the open roles); the role of a stored name (submitter, operator), -1
 * for any other. */
const char *auth_role_name(int role);
int auth_role_parse(const char *s);

/* `klabd token ...` (argv from "token"); the exit status. */
int token_main(int argc, char **argv);

#endif
