#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/checksrc.sh: each rule fires on a small bad file, at the line
# it should and only there; code that keeps the rules passes (strings,
# comments, for headers, do-while, comparisons, an 80-column line); a
# waiver waives what it says and no more; directories are walked but for
# fuzz/corpus/ and tests/data/; exit 1 on findings, 2 on an unreadable
# file, 0 when clean.
. "$(dirname "$0")/lib.sh"
CS=$TOP/scripts/checksrc.sh
cd "$TMP" || fail "cannot enter $TMP"

# expect FILE RULE LINE...: the findings of FILE are exactly RULE at each
# LINE (one finding a line), and checksrc exits 1
expect() {
	_f=$1
	_r=$2
	shift 2
	"$CS" "$_f" >out.txt 2>err.txt
	_rc=$?
	[ "$_rc" -eq 1 ] || fail "$_f: exit $_rc, expected 1: $(cat out.txt err.txt)"
	: >want.txt
	for _l in "$@"; do
		echo "$_f:$_l: $_r" >>want.txt
	done
	cut -d: -f1-3 out.txt >got.txt
	cmp -s want.txt got.txt ||
		fail "$_f: expected $_r at $*, got: $(cat out.txt)"
}
# clean FILE...: no finding, exit 0
clean() {
	"$CS" "$@" >out.txt 2>&1 || fail "$* not clean: $(cat out.txt)"
	[ ! -s out.txt ] || fail "$* printed: $(cat out.txt)"
}

T=$(printf '\t')

# LONGLINE: 81 columns fail, 80 pass; a tab counts to the next multiple
# of 8 (2 tabs and 65 characters are 81, 2 tabs and 64 are 80).
{
	echo "/* $(printf '%074d' 0) */"
	echo "/* $(printf '%075d' 0) */"
	echo "$T$T/* $(printf '%058d' 0) */"
	echo "$T$T/* $(printf '%059d' 0) */"
	echo "$T$T$T$T$T$T$T$T$T$T/*x */"
} >long.c
expect long.c LONGLINE 2 4 5
sed -n '1p;3p' long.c >ok80.c
clean ok80.c

# TRAILINGSPACE and SPACEBEFORETAB
printf 'int a;\nint b; \nint c;%s\n' "$T" >trail.c
expect trail.c TRAILINGSPACE 2 3
printf 'int f(void)\n{\n%sreturn 0;\n %sreturn 1;\n}\n' "$T" "$T" >sbt.c
expect sbt.c SPACEBEFORETAB 4

# BANNEDFUNC: each banned call; not in strings, comments, members, or
# the safe names beside them
cat >banned.c <<'EOF'
void f(char *d, const char *s, char *b, int n)
{
	strcpy(d, s);
	strcat(d, s);
	sprintf(b, "%d", n);
	n = atoi(s);
	n = rand();
	d = strtok(b, ",");
	d = gets(b);
	n = (int)atol (s);
	gmtime(NULL);
}
EOF
expect banned.c BANNEDFUNC 3 4 5 6 7 8 9 10 11
cat >notbanned.c <<'EOF'
/* strcpy(a, b) and sprintf(buf, "x") in a comment */
void f(char *d, const char *s, char *b, size_t len, struct r *o)
{
	char *save;

	snprintf(b, len, "strcpy(%s)", s);
	memcpy(d, s, len);
	d = strtok_r(b, ",", &save);
	d = fgets(b, (int)len, stdin);
	o->rand(o);
	o->ops.atoi(s);
	my_sprintf(b);
	gmtime_r(NULL, NULL);
}
EOF
clean notbanned.c

# ASSIGNWITHINCONDITION: in if, while, do-while, switch, a for's
# condition, a multi-line condition at the line of the '=', compound
# assignments too
cat >assign.c <<'EOF'
int f(FILE *fp, char *s)
{
	int c, n = 0;

	if ((c = getc(fp)) == EOF)
		return -1;
	while ((c = getc(fp)) != EOF)
		n++;
	do
		n--;
	while ((n += 2) < 10);
	switch ((c = s[0])) {
	default:
		break;
	}
	for (s = s + 1; (c = *s); s++)
		n++;
	if (n > 1 &&
	    (s = strchr(s, ',')))
		return 1;
	if (n <<= 1)
		return 2;
	return n;
}
EOF
expect assign.c ASSIGNWITHINCONDITION 5 7 11 12 16 19 21
cat >noassign.c <<'EOF'
int f(int a, int b, char *s)
{
	int i;

	for (i = 0, a = 1; i < b; i += 2)
		a++;
	if (a == b || a != b || a <= b || a >= b || (a >> 1) > (b << 1))
		return 1;
	if (!strcmp(s, "x = y"))
		return 2;
	while (s[0] == '=')
		s++;
	a = b == 2;
	return a;
}
EOF
clean noassign.c

# ONESTATEMENT: two statements on a line; a statement on the line of its
# if/else/for/while/do/switch, braced or not
cat >onestmt.c <<'EOF'
int f(int a, int b)
{
	a = 1; b = 2;
	switch (a) {
	case 1: a = 2; break;
	case 2: return 3;
	}
	if (a) return 1;
	if (b) { a = 2; }
	if (a)
		b = 1;
	else b = 2;
	while (a) a--;
	for (;;) break;
	do a++;
	while (a < 3);
	return a;
}
EOF
expect onestmt.c ONESTATEMENT 3 5 8 9 12 13 14 15
cat >oneok.c <<'EOF'
#define SWAP(a, b) do { \
		int t_ = (a); \
		(a) = (b); \
		(b) = t_; \
	} while (0)
#if defined(X) && X == 1
#else
#endif
static const char *s = "a; b; if (x) y;";
static int g(void) { return 0; }

int f(int a, int b)
{
	int i; /* one; two; */

	for (i = 0; i < a; i++) {
		if (i == b)
			continue;
		else if (i > b) {
			break;
		} else {
			a--;
		}
	}
	switch (a) {
	case 1:
	case 2: return ';';
	default:
		break;
	}
	do {
		a++;
	} while (a < b);
	while (a--)
		;
	if (a >
	    b) {
		SWAP(a, b);
	}
out:
	return a + g() + (s != 0);
}
EOF
clean oneok.c

# Waivers: N findings of a rule, every one until enable, and no more;
# an unused or unreadable one is a finding itself
cat >waive.c <<'EOF'
void f(char *d, const char *s, char *b)
{
	/* !checksrc! disable BANNEDFUNC 1 */
	strcpy(d, s);
	strcpy(d, s);
	/* !checksrc! disable ONESTATEMENT all */
	d = b; b = d;
	d = b; b = d;
	/* !checksrc! enable ONESTATEMENT */
	d = b; b = d;
}
EOF
"$CS" waive.c >out.txt 2>/dev/null
[ "$(cut -d: -f2,3 out.txt | tr '\n' ' ')" = "5: BANNEDFUNC 10: ONESTATEMENT " ] ||
	fail "waivers: $(cat out.txt)"
cat >waive2.c <<'EOF'
/* !checksrc! disable LONGLINE 1 */
int a;
/* !checksrc! disable NOSUCHRULE 1 */
/* !checksrc! disable ONESTATEMENT all */
EOF
"$CS" waive2.c >out.txt 2>/dev/null
[ "$(cut -d: -f2,3 out.txt | tr '\n' ' ')" = "1: UNUSEDWAIVER 3: BADWAIVER 4: UNUSEDWAIVER " ] ||
	fail "unused and bad waivers: $(cat out.txt)"

# Directories: their C files, fuzz/corpus/ and tests/data/ left out;
# exit 0 clean, 2 on a file that cannot be read
mkdir -p tree/lib tree/fuzz/corpus tree/tests/data tree/docs
cp banned.c tree/lib/
cp banned.c tree/fuzz/corpus/x.c
cp banned.c tree/tests/data/x.c
cp banned.c tree/docs/x.txt
cp oneok.c tree/lib/ok.h
"$CS" tree >out.txt 2>/dev/null
[ "$(cut -d: -f1 out.txt | sort -u)" = tree/lib/banned.c ] ||
	fail "directory walk: $(cat out.txt)"
rm tree/lib/banned.c
clean tree
"$CS" nosuch.c >out.txt 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "unreadable file: exit $rc, expected 2"
grep -q "cannot read 'nosuch.c'" out.txt || fail "unreadable file: $(cat out.txt)"
ok "checksrc"
