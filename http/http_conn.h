/* SPDX-License-Identifier: MIT */
/*
 * http_conn: who may hold one of klabd's connections, and for how long,
 * beyond libmicrohttpd's own limits (http.c).  Against a slowloris, whose
 * clients drip a byte now and then so that the idle timeout never fires:
 * - every connection must deliver a request's headers within
 *   header_timeout seconds of its accept, or of the end of its previous
 *   request, however slowly it sends them, and its body at 16 KiB/s on
 *   average beyond that; a reaper thread shuts the late ones down (under
 *   the lock that libmicrohttpd's close notification takes, so a
 *   descriptor is never shut after it was closed and reused);
 * - connections from addresses other than 127.0.0.1, where every QEMU
 *   rig's agent and the host's own clients come from, leave a reserve of
 *   slots for it: they hold at most max_connections minus
 *   min(max_connections_per_ip, max_connections / 2).
 * And the listening socket itself, bound without SO_REUSEPORT, so that a
 * second klabd on a port in use fails at start instead of sharing it.
 */
#ifndef KLAB_HTTP_CONN_H
#define KLAB_HTTP_CONN_H

#include <microhttpd.h>
#include <stddef.h>
#include <sys/socket.h>

#include "klabd/klabd.h"

/* A listening TCP socket on host:port (IPv4; port 0 picks one), close on
 * exec and non-blocking.  The descriptor, or -1 with err naming the
 * address and why (in use: another klabd or another server on it). */
int http_listen(const char *host, int port, char *err, size_t errlen);

/* The guard for d's limits (d->lim set) and its reaper thread, in
 * d->guard; 0, or -1 with err filled. */
int http_guard_start(struct klabd *d, char *err, size_t errlen);
/* Join the reaper and free the guard, once libmicrohttpd has stopped;
 * accepts a guard not started (d->guard NULL). */
void http_guard_stop(struct klabd *d);

/* libmicrohttpd's callbacks, with d->guard as cls: the accept policy
 * (the reserve for 127.0.0.1) and the connection notifications. */
enum MHD_Result http_guard_accept(void *cls, const struct sockaddr *addr,
				  socklen_t addrlen);
void http_guard_notify(void *cls, struct MHD_Connection *conn,
		       void **socket_context,
		       enum MHD_ConnectionNotificationCode toe);
/* conn's request has arrived, headers and body (arrived 1: its clock
 * stops while klabd answers), or it is over and the connection may send
 * another (0: the clock starts again, header_timeout). */
void http_guard_request(struct klabd *d, struct MHD_Connection *conn,
			int arrived);
/* bytes more of conn's request body are to come: its deadline moves by
 * the time they take at the least rate allowed. */
void http_guard_body(struct klabd *d, struct MHD_Connection *conn,
		     unsigned long long bytes);

#endif
