// SPDX-License-Identifier: MIT
/*
 * The listening socket and the connection guard of klabd's HTTP layer
 * (http_conn.h): each connection is a struct guard_conn in a list, added
 * and removed by libmicrohttpd's notifications; a reaper thread looks at
 * the list every REAP_TICK_MS and shuts down the connections whose
 * request has not arrived in time: its headers within header_timeout,
 * its body at BODY_RATE on average beyond that.  What it did goes to
 * stderr at most once a minute.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/http_conn.h"
#include "lib/list.h"
#include "lib/proc.h"

#define REAP_TICK_MS 500
#define LOG_EVERY_MS 60000
#define BODY_RATE 16384		/* bytes/s a body must average, at least */

int http_listen(const char *host, int port, char *err, size_t errlen)
{
	struct sockaddr_in sa;
	int fd, on = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "invalid listen address '%s'", host);
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s:%d: %s", host, port,
			 strerror(errno));
		return -1;
	}
	/* SO_REUSEADDR: a restart binds past the old connections'
	 * TIME_WAIT, but never beside a socket still listening; no
	 * SO_REUSEPORT, which would share the port with it */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, SOMAXCONN)) {
		snprintf(err, errlen, "cannot listen on %s:%d: %s%s", host,
			 port, strerror(errno), errno == EADDRINUSE ?
			 " (another klabd, or another server, is serving it)" :
			 "");
		close(fd);
		return -1;
	}
	return fd;
}

/* One connection, from its accept to its close. */
struct guard_conn {
	int fd;
	int local;		/* from 127.0.0.1: no share of the reserve */
	int waiting;		/* for a request, until deadline_ms */
	int shut;		/* shut down by the reaper */
	long long deadline_ms;	/* proc_now_ms() */
	struct guard_conn *prev, *next;
};

struct http_guard {
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* stop */
	struct guard_conn *head;
	int others;			/* connections not from 127.0.0.1 */
	int others_max;			/* max_connections - the reserve */
	long long header_ms;		/* header_timeout */
	int stopping, running;
	pthread_t reaper;
	unsigned long shut, refused;	/* since the last log line */
	long long logged_ms;
};

static int addr_local(const struct sockaddr *sa)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

	return sa && sa->sa_family == AF_INET &&
	       ntohl(in->sin_addr.s_addr) == INADDR_LOOPBACK;
}

enum MHD_Result http_guard_accept(void *cls, const struct sockaddr *addr,
				  socklen_t addrlen)
{
	struct http_guard *g = cls;
	enum MHD_Result ok = MHD_YES;

	if (addr_local(addr))
		return MHD_YES;
	pthread_mutex_lock(&g->lock);
	if (g->others >= g->others_max) {
		g->refused++;
		ok = MHD_NO;
	}
	pthread_mutex_unlock(&g->lock);
	return ok;
}

/* A connection begins: into the list, waiting for its first request. */
static void guard_add(struct http_guard *g, struct MHD_Connection *conn,
		      void **socket_context)
{
	const union MHD_ConnectionInfo *fd, *addr;
	struct guard_conn *c = calloc(1, sizeof(*c));

	if (!c)
		abort();
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(conn,
				       MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	c->fd = fd ? fd->connect_fd : -1;
	c->local = addr && addr_local(addr->client_addr);
	c->waiting = 1;
	c->deadline_ms = proc_now_ms() + g->header_ms;
	pthread_mutex_lock(&g->lock);
	LIST_PUSH(g->head, c);
	if (!c->local)
		g->others++;
	pthread_mutex_unlock(&g->lock);
	*socket_context = c;
}

void http_guard_notify(void *cls, struct MHD_Connection *conn,
		       void **socket_context,
		       enum MHD_ConnectionNotificationCode toe)
{
	struct http_guard *g = cls;
	struct guard_conn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		guard_add(g, conn, socket_context);
		return;
	}
	if (!c)
		return;
	/* libmicrohttpd closes the descriptor after this returns: once c
	 * is out of the list, the reaper cannot reach it */
	pthread_mutex_lock(&g->lock);
	LIST_UNLINK(g->head, c);
	if (!c->local)
		g->others--;
	pthread_mutex_unlock(&g->lock);
	free(c);
	*socket_context = NULL;
}

/* conn's entry in the guard g, NULL when none. */
static struct guard_conn *guard_of(struct http_guard *g,
				   struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci;

	if (!g)
		return NULL;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

void http_guard_request(struct klabd *d, struct MHD_Connection *conn,
			int arrived)
{
	struct http_guard *g = d->guard;
	struct guard_conn *c = guard_of(g, conn);

	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	c->waiting = !arrived;
	c->deadline_ms = proc_now_ms() + g->header_ms;
	pthread_mutex_unlock(&g->lock);
}

void http_guard_body(struct klabd *d, struct MHD_Connection *conn,
		     unsigned long long bytes)
{
	struct http_guard *g = d->guard;
	struct guard_conn *c = guard_of(g, conn);

	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	c->deadline_ms += (long long)(bytes * 1000 / BODY_RATE);
	pthread_mutex_unlock(&g->lock);
}

/* Under g->lock: shut down the connections late with their request. */
static void guard_reap(struct http_guard *g, long long now)
{
	struct guard_conn *c;

	for (c = g->head; c; c = c->next) {
		if (!c->waiting || c->shut || c->fd < 0 ||
		    now < c->deadline_ms)
			continue;
		/* libmicrohttpd sees the end of its input and closes it */
		shutdown(c->fd, SHUT_RDWR);
		c->shut = 1;
		g->shut++;
	}
}

/* Under g->lock: a line a minute about what the guard did. */
static void guard_log(struct http_guard *g, long long now)
{
	if ((!g->shut && !g->refused) || now - g->logged_ms < LOG_EVERY_MS)
		return;
	fprintf(stderr, "klabd: http: %lu connections closed that sent no "
		"request within %lld s, %lu refused beyond %d from addresses "
		"other than 127.0.0.1 (slow or hostile clients)\n", g->shut,
		g->header_ms / 1000, g->refused, g->others_max);
	g->shut = g->refused = 0;
	g->logged_ms = now;
}

static void *guard_reaper(void *arg)
{
	struct http_guard *g = arg;
	struct timespec wake;
	long long now;

	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		now = proc_now_ms();
		guard_reap(g, now);
		guard_log(g, now);
		now += REAP_TICK_MS;
		wake.tv_sec = (time_t)(now / 1000);
		wake.tv_nsec = (long)(now % 1000) * 1000000L;
		pthread_cond_timedwait(&g->cond, &g->lock, &wake);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int http_guard_start(struct klabd *d, char *err, size_t errlen)
{
	struct http_guard *g = calloc(1, sizeof(*g));
	int reserve = d->lim.max_per_ip;

	if (!g)
		abort();
	if (reserve > d->lim.max_conns / 2)
		reserve = d->lim.max_conns / 2;
	g->others_max = d->lim.max_conns - reserve;
	g->header_ms = (long long)d->lim.header_timeout * 1000;
	g->logged_ms = proc_now_ms() - LOG_EVERY_MS;
	pthread_mutex_init(&g->lock, NULL);
	proc_cond_init(&g->cond);
	d->guard = g;
	if (proc_thread_start(&g->reaper, guard_reaper, g, "http reaper",
			      err, errlen))
		return -1;
	g->running = 1;
	return 0;
}

void http_guard_stop(struct klabd *d)
{
	struct http_guard *g = d->guard;
	struct guard_conn *c;

	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stopping = 1;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
	if (g->running)
		pthread_join(g->reaper, NULL);
	while (g->head) {
		c = g->head;
		LIST_UNLINK(g->head, c);
		free(c);
	}
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	free(g);
	d->guard = NULL;
}
