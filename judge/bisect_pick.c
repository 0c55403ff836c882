// SPDX-License-Identifier: MIT
/*
 * The step logic of a bisection (see bisect_pick.h): find the open range,
 * count what is left in it, and pick the untested index nearest its
 * middle.
 */
#include <math.h>
#include <string.h>

#include "bisect_pick.h"

static const char *const mark_names[] = {
	[BIS_UNTESTED] = "untested", [BIS_GOOD] = "good", [BIS_BAD] = "bad",
	[BIS_SKIP] = "skip",
};

const char *bisect_mark_name(enum bis_mark m)
{
	if ((size_t)m >= sizeof(mark_names) / sizeof(mark_names[0]))
		return "untested";
	return mark_names[m];
}

int bisect_mark_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(mark_names) / sizeof(mark_names[0]); i++)
		if (!strcmp(s, mark_names[i]))
			return (int)i;
	return -1;
}

size_t bisect_ideal_steps(size_t n)
{
	size_t steps = 0;

	while (((size_t)1 << steps) < n)
		steps++;
	return steps;
}

enum bis_mark bisect_side(double ends, double lo, double hi)
{
	double half = ends / 2;

	if (!isfinite(ends) || !isfinite(lo) || !isfinite(hi) || ends == 0 ||
	    lo > hi)
		return BIS_UNTESTED;
	if (ends > 0)
		return hi < half ? BIS_GOOD : lo > half ? BIS_BAD :
		       BIS_UNTESTED;
	return lo > half ? BIS_GOOD : hi < half ? BIS_BAD : BIS_UNTESTED;
}

static enum bis_mark mark_at(const enum bis_mark *marks, size_t n, size_t i)
{
	if (i == 0)
		return BIS_GOOD;
	if (i == n)
		return BIS_BAD;
	return marks[i];
}

void bisect_next(const enum bis_mark *marks, size_t n, struct bis_next *out)
{
	size_t i, bad = n, good = 0, mid, d, best = 0, found = 0;

	memset(out, 0, sizeof(*out));
	for (i = 1; i < n; i++)
		if (mark_at(marks, n, i) == BIS_BAD) {
			bad = i;
			break;
		}
	for (i = bad; i-- > 1;)
		if (mark_at(marks, n, i) == BIS_GOOD) {
			good = i;
			break;
		}
	out->good = good;
	out->bad = bad;
	for (i = good + 1; i < bad; i++)
		out->left += mark_at(marks, n, i) == BIS_UNTESTED;
	out->steps_left = bisect_ideal_steps(out->left + 1);
	if (bad - good == 1) {
		out->state = BIS_FOUND;
		out->next = bad;
		return;
	}
	if (!out->left) {
		out->state = BIS_CANNOT;
		return;
	}
	/* the untested index nearest the middle, the lower on a tie */
	mid = good + (bad - good) / 2;
	for (d = 0; !found && d <= bad - good; d++) {
		if (mid >= d && mid - d > good &&
		    mark_at(marks, n, mid - d) == BIS_UNTESTED) {
			best = mid - d;
			found = 1;
		} else if (mid + d < bad &&
			   mark_at(marks, n, mid + d) == BIS_UNTESTED) {
			best = mid + d;
			found = 1;
		}
	}
	out->state = BIS_TEST;
	out->next = best;
}
