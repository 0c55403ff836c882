/* SPDX-License-Identifier: MIT */
/*
 * utf8: the one rule that makes text from outside valid UTF-8, for every
 * place it goes: the database (db_bind_str, db_col_str), JSON answers and
 * documents (page_jstr, result_set_to_json, the agent's raw outputs, the
 * alert webhooks) and the Atom feed.
 *
 * Well-formed is RFC 3629's: no overlong forms, no surrogates
 * (U+D800..U+DFFF), nothing past U+10FFFF, no sequence cut short.  The
 * repair keeps every well-formed character as it is and puts U+FFFD (the
 * replacement character, "\xef\xbf\xbd") in place of each byte that is
 * not part of one, and of each NUL.  So "a\xff\xfeb" becomes "a" U+FFFD
 * U+FFFD "b" and "\xe2\x82" (a cut euro sign) two U+FFFD.
 *
 * Why this rule for all of them (they had three: U+FFFD per byte, '?' per
 * byte, '?' for every byte past ASCII once one was bad, and the webhooks
 * dropped the text):
 *  - no valid character is lost: "Grüß \xff" keeps its ü and ß;
 *  - a replaced byte is told apart from a '?' the text really held, and
 *    nothing vanishes without a mark;
 *  - it is what the database has stored since it repaired text, so a
 *    string served straight and the same string stored and read back are
 *    the same bytes, and repairing twice changes nothing;
 *  - one U+FFFD per byte rather than per "maximal subpart" (both are
 *    Unicode's, section 3.9) because the stored rows already count so;
 *  - a NUL ends a C string, a sqlite text and jansson's strings as klab
 *    reads them, and XML forbids it: it is never passed on.
 * What a format forbids beyond that (control characters in XML) is that
 * format's writer's business, on top of this rule.
 */
#ifndef KLAB_UTF8_H
#define KLAB_UTF8_H

#include <stddef.h>

struct strbuf;
struct json_t;

#define UTF8_REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

/* Byte offset of the first byte that is not well-formed UTF-8, or len
 * when the whole buffer is.  A NUL is well-formed here (U+0000). */
size_t utf8_check(const char *s, size_t len);
/* utf8_check(s, len) == len. */
int utf8_valid(const char *s, size_t len);
/* Append the len bytes at s to sb, repaired by the rule above. */
void utf8_repair_add(struct strbuf *sb, const char *s, size_t len);
/* A malloc'd NUL-terminated copy of the len bytes at s, repaired by the
 * rule above; aborts when out of memory. */
char *utf8_repair(const char *s, size_t len);
/* A new JSON string of the len bytes at s, repaired by the rule above.
 * NULL only when out of memory. */
struct json_t *utf8_json_stringn(const char *s, size_t len);
/* utf8_json_stringn() of a NUL-terminated s; s NULL gives JSON null. */
struct json_t *utf8_json_string(const char *s);

#endif
