/* SPDX-License-Identifier: MIT */
/*
 * driver: the background thread of each of klabd's drivers (comparisons,
 * submissions, bisections, the tracker, alert delivery).  It runs a pass
 * of its work, then sleeps until the wait the pass asked for is over or
 * it is kicked, until stopped.  A kick during a pass means one more pass
 * right after it; no kick is lost.
 */
#ifndef KLAB_DRIVER_H
#define KLAB_DRIVER_H

#include <stddef.h>

struct driver;

/*
 * Start the thread that runs pass(arg) over and over; pass returns the
 * seconds to sleep before the next pass unless kicked (0: at once).  *dp
 * is set before the thread starts (a pass may kick its own driver).  0,
 * or -1 with *dp NULL and err "cannot start the WHAT".
 */
int driver_start(struct driver **dp, const char *what,
		 long (*pass)(void *arg), void *arg, char *err,
		 size_t errlen);
/* Stop the thread after its pass and join it, *dp NULL; accepts a NULL
 * *dp.  The struct stays valid (a kick is then a no-op) until
 * driver_release_all(). */
void driver_stop(struct driver **dp);
/* Free every stopped driver: once no thread that may kick one is left. */
void driver_release_all(void);
/* One more pass as soon as the current one ends; accepts NULL. */
void driver_kick(struct driver *dr);

#endif
