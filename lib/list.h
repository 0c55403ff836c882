/* SPDX-License-Identifier: MIT */
/*
 * list: the intrusive doubly-linked list klab keeps its parked waiters in
 * (the rig manager's long polls, the HTTP park).  A node is any struct
 * with prev and next pointers to its own type; the list is a head
 * pointer, NULL when empty.  No locking: the caller holds the list's lock.
 */
#ifndef KLAB_LIST_H
#define KLAB_LIST_H

/* Put n at the front of the list at head. */
#define LIST_PUSH(head, n)						\
	do {								\
		(n)->prev = NULL;					\
		(n)->next = (head);					\
		if (head)						\
			(head)->prev = (n);				\
		(head) = (n);						\
	} while (0)

/* Take n out of the list at head; n's links become NULL. */
#define LIST_UNLINK(head, n)						\
	do {								\
		if ((n)->prev)						\
			(n)->prev->next = (n)->next;			\
		else							\
			(head) = (n)->next;				\
		if ((n)->next)						\
			(n)->next->prev = (n)->prev;			\
		(n)->prev = (n)->next = NULL;				\
	} while (0)

#endif
