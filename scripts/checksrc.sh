#!/bin/sh
# SPDX-License-Identifier: MIT
# checksrc: hold klab's C files to the house style, in the spirit of
# curl's checksrc.pl.  Not the whole style guide: the rules a reader can
# check by eye and that slipped as the tree grew (issue 30), each by name.
#
#   scripts/checksrc.sh [FILE|DIR...]
#
# Checks the *.c and *.h files named, those under each DIR named, or with
# no argument every C file of the tree but build/, fuzz/corpus/ and
# tests/data/ (test input: a fake kernel tree that patches apply to).
# Prints each finding as
#   FILE:LINE: RULE: text
# and exits 1 when there is any, 2 when a file cannot be read, else 0.
#
# The rules:
#   LONGLINE        a line over 80 columns (a tab counts to the next
#                   multiple of 8)
#   TRAILINGSPACE   blanks at the end of a line
#   SPACEBEFORETAB  a space before a tab in a line's indentation
#   BANNEDFUNC      a call of gets, strcpy, strcat, strncat, strncpy,
#                   sprintf, vsprintf, strtok (strtok_r is fine), atoi,
#                   atol, atoll, atof, rand, srand (lib/rand.h is the one
#                   RNG), gmtime, localtime, ctime, asctime (klabd is
#                   threaded: the _r forms), tmpnam, tempnam, mktemp
#   ASSIGNWITHINCONDITION
#                   an assignment (=, +=, <<= ...) inside the condition
#                   of an if, while (do-while's too), switch, or the
#                   middle clause of a for.  No exception for the
#                   read loop: write `for (;;) { c = getc(f); if (c ==
#                   EOF) break; ... }`, or put the call in the for's
#                   first and third clauses.
#   ONESTATEMENT    two statements on a line (two `;` outside
#                   parentheses: `a = 1; b = 2;`, `case X: y = 1;
#                   break;`), or a statement on the line of its
#                   if/else/for/while/do/switch (`if (x) return;`,
#                   `if (x) { y(); }`): the body goes on the next line
#                   (kernel coding-style.rst, section 1).  A lone `;`
#                   after while (...) (do-while's end) is fine.
#   LONGFILE        a file over 700 lines outside tests/ (ARCHITECTURE.md,
#                   "The house": split it by concern)
#   BADWAIVER       a !checksrc! comment checksrc cannot read
#   UNUSEDWAIVER    a waiver with nothing (left) to waive
#
# Comments and the insides of string and character literals are blanked
# before BANNEDFUNC, ASSIGNWITHINCONDITION and ONESTATEMENT look; the
# other rules read the raw line.
#
# A waiver, for a line with a good reason to break a rule (used sparingly,
# the reason beside it):
#   /* !checksrc! disable RULE N */    the next N findings of RULE
#   /* !checksrc! disable RULE all */  every finding of RULE until
#   /* !checksrc! enable RULE */       ... this (or the end of the file)
# A waiver counts findings on its own line and the lines below it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd) || exit 2
case ${1:-} in
-h|--help)
	sed -n '3,/^set -u$/{/^set -u$/d;s/^# \{0,1\}//;p;}' "$0"
	exit 0 ;;
esac
if [ $# -eq 0 ]; then
	cd "$top" || exit 2
	set -- .
fi
# list FILE|DIR...: the C files to check, one a line
list() {
	for a in "$@"; do
		if [ -d "$a" ]; then
			find "$a" -name '*.[ch]' -type f -print |
				sed 's|^\./||' |
				grep -Ev '(^|/)(build|\.git)/|(^|/)fuzz/corpus/|(^|/)tests/data/' |
				sort
		else
			printf '%s\n' "$a"
		fi
	done
}
# The checker: perl, the file names on its standard input
prog=$(cat <<'EOF'
use strict;
use warnings;

my %banned = (
	gets => 'fgets',
	strcpy => 'memcpy with a known length, snprintf or a strbuf',
	strcat => 'snprintf or a strbuf',
	strncat => 'snprintf or a strbuf',
	strncpy => 'memcpy with a known length or snprintf',
	sprintf => 'snprintf',
	vsprintf => 'vsnprintf',
	strtok => 'strtok_r or strcspn/strspn',
	atoi => 'strtol with full checking',
	atol => 'strtol with full checking',
	atoll => 'strtoll with full checking',
	atof => 'strtod with full checking',
	rand => 'lib/rand.h',
	srand => 'lib/rand.h',
	gmtime => 'gmtime_r',
	localtime => 'localtime_r',
	ctime => 'ctime_r or strftime',
	asctime => 'strftime',
	tmpnam => 'mkstemp',
	tempnam => 'mkstemp',
	mktemp => 'mkstemp or mkdtemp',
);
my $banned_re = join '|', sort keys %banned;
my %waivable = map { $_ => 1 } qw(LONGLINE TRAILINGSPACE SPACEBEFORETAB
	BANNEDFUNC ASSIGNWITHINCONDITION ONESTATEMENT);
my ($total, $nfiles, $ioerr) = (0, 0, 0);

# The display width of a line: tabs to the next multiple of 8, UTF-8
# characters one column each.
sub width {
	my ($s) = @_;
	utf8::decode($s);
	return length $s if index($s, "\t") < 0;
	my $col = 0;
	for my $ch (split //, $s) {
		$col = $ch eq "\t" ? ($col + 8) & ~7 : $col + 1;
	}
	return $col;
}

# Comments to blanks, the insides of string and character literals to
# blanks (their quotes kept); newlines, and so line numbers, kept.
sub blank {
	my ($t) = @_;
	$t =~ s{(/\*.*?\*/|//[^\n]*)|("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')}{
		my ($c, $s) = ($1, $2);
		if (defined $c) {
			$c =~ s/[^\n]/ /g;
			$c;
		} else {
			my $q = substr($s, 0, 1);
			my $in = substr($s, 1, -1);
			$in =~ s/[^\n]/ /g;
			"$q$in$q";
		}
	}gse;
	return $t;
}

# The offset of the parenthesis closing the one at $open, or -1.
sub closing {
	my ($t, $open) = @_;
	my $depth = 0;
	pos($t) = $open;
	while ($t =~ /([()])/g) {
		$depth += $1 eq '(' ? 1 : -1;
		return pos($t) - 1 if $depth == 0;
	}
	return -1;
}

sub check_file {
	my ($file) = @_;
	my $fh;
	if (!open $fh, '<', $file) {
		print STDERR "checksrc: cannot read '$file': $!\n";
		$ioerr = 1;
		return;
	}
	my $raw = do { local $/; <$fh> };
	close $fh;
	$nfiles++;
	my @lines = split /\n/, $raw, -1;
	pop @lines if @lines && $lines[-1] eq '';
	my $code = blank($raw);
	my @starts = (0);
	push @starts, pos($code) while $code =~ /\n/g;
	my $lineof = sub {
		my ($off) = @_;
		my ($lo, $hi) = (0, $#starts);
		while ($lo < $hi) {
			my $mid = ($lo + $hi + 1) >> 1;
			if ($starts[$mid] <= $off) {
				$lo = $mid;
			} else {
				$hi = $mid - 1;
			}
		}
		return $lo + 1;
	};
	# the rest of the code line from offset $off: no blanks, no \ at its end
	my $rest = sub {
		my ($off) = @_;
		my $nl = index($code, "\n", $off);
		my $r = substr($code, $off, ($nl < 0 ? length($code) : $nl) - $off);
		$r =~ s/\\\s*$//;
		$r =~ s/^\s+|\s+$//g;
		return $r;
	};
	my (@found, %seen, @waivers);
	my $add = sub {
		my ($line, $rule, $msg) = @_;
		return if $seen{"$line $rule"}++;
		push @found, [$line, $rule, $msg];
	};

	for my $i (0 .. $#lines) {
		my $l = $lines[$i];
		my $n = $i + 1;
		my $w = width($l);
		$add->($n, 'LONGLINE', "$w columns, more than 80") if $w > 80;
		$add->($n, 'TRAILINGSPACE', 'blanks at the end of the line')
			if $l =~ /\s$/;
		$add->($n, 'SPACEBEFORETAB', 'a space before a tab in the indentation')
			if $l =~ /^[ \t]* \t/;
		while ($l =~ m{/\*\s*!checksrc!\s*(.*?)\s*\*/}g) {
			my $d = $1;
			if ($d =~ /^disable\s+([A-Z]+)\s+([1-9][0-9]*|all)$/ &&
			    $waivable{$1}) {
				push @waivers, [$n, $1, $2];
			} elsif ($d =~ /^enable\s+([A-Z]+)$/ && $waivable{$1}) {
				push @waivers, [$n, $1, 'enable'];
			} else {
				push @found, [$n, 'BADWAIVER',
					"cannot read '$d': disable RULE N|all, enable RULE"];
			}
		}
	}

	while ($code =~ /\b($banned_re)\s*\(/g) {
		my ($name, $at) = ($1, $-[0]);
		next if substr($code, 0, $at) =~ /(?:->|\.)\s*$/;
		$add->($lineof->($at), 'BANNEDFUNC',
			"$name() is banned: use $banned{$name}");
	}

	# Control statements: their conditions and what follows them.
	while ($code =~ /\b(if|while|for|switch)\s*\(/g) {
		my ($kw, $at, $open) = ($1, $-[0], $+[0] - 1);
		my $bol = rindex($code, "\n", $at) + 1;
		next if substr($code, $bol, $at - $bol) =~ /^\s*#\s*$/;
		my $close = closing($code, $open);
		next if $close < 0;
		my $cond = substr($code, $open + 1, $close - $open - 1);
		my $base = $open + 1;
		if ($kw eq 'for') {
			my ($d, $semi) = (0, 0);
			my ($from, $to) = (-1, length $cond);
			while ($cond =~ /([();])/g) {
				if ($1 eq '(') {
					$d++;
				} elsif ($1 eq ')') {
					$d--;
				} elsif ($d == 0) {
					$semi++;
					$from = pos($cond) if $semi == 1;
					$to = pos($cond) - 1 if $semi == 2;
				}
			}
			next if $from < 0;
			$base += $from;
			$cond = substr($cond, $from, $to - $from);
		}
		while ($cond =~ /(<<=|>>=|==|!=|<=|>=|[-+*\/%&|^]?=)/g) {
			my $op = $1;
			next if $op =~ /^(==|!=|<=|>=)$/;
			my $what = $kw eq 'for' ? "a for's condition" : "the condition of '$kw'";
			$add->($lineof->($base + $-[0]), 'ASSIGNWITHINCONDITION',
				"'$op' inside $what");
		}
		my $r = $rest->($close + 1);
		next if $r eq '' || $r eq '{';
		next if $r eq ';' && ($kw eq 'while' || $kw eq 'for');
		$add->($lineof->($close), 'ONESTATEMENT',
			"a statement on the line of its '$kw (...)'");
	}
	while ($code =~ /\b(else|do)\b/g) {
		my ($kw, $at) = ($1, $-[0]);
		my $bol = rindex($code, "\n", $at) + 1;
		next if substr($code, $bol, $at - $bol) =~ /^\s*#\s*$/;
		my $r = $rest->($+[0]);
		next if $r eq '' || $r eq '{';
		next if $kw eq 'else' && $r =~ /^if\s*\(/;
		$add->($lineof->($at), 'ONESTATEMENT',
			"a statement on the line of its '$kw'");
	}

	# Statements: a `;` outside parentheses ends one.
	my ($depth, $line, $semis) = (0, 1, 0);
	while ($code =~ /([(){};\n])/g) {
		my $c = $1;
		if ($c eq "\n") {
			$add->($line, 'ONESTATEMENT', "$semis statements on one line")
				if $semis > 1;
			$line++;
			$semis = 0;
		} elsif ($c eq '(') {
			$depth++;
		} elsif ($c eq ')') {
			$depth-- if $depth > 0;
		} elsif ($c eq ';') {
			$semis++ if $depth == 0;
		} else {
			$depth = 0;
		}
	}
	$add->($line, 'ONESTATEMENT', "$semis statements on one line")
		if $semis > 1;

	$add->(scalar(@lines), 'LONGFILE', scalar(@lines) . " lines, more than 700")
		if @lines > 700 && $file !~ m{(^|/)tests/};

	# Waivers, then the report in line order.
	my %order = (LONGFILE => -1, LONGLINE => 0, TRAILINGSPACE => 1, SPACEBEFORETAB => 2,
		BANNEDFUNC => 3, ASSIGNWITHINCONDITION => 4, ONESTATEMENT => 5,
		BADWAIVER => 6, UNUSEDWAIVER => 7);
	@found = sort { $a->[0] <=> $b->[0] || $order{$a->[1]} <=> $order{$b->[1]} }
		@found;
	my (%count, %all, @out);
	my @ev = ((map { [$_->[0], 0, $_] } @waivers),
		(map { [$_->[0], 1, $_] } @found));
	for my $e (sort { $a->[0] <=> $b->[0] || $a->[1] <=> $b->[1] } @ev) {
		my $x = $e->[2];
		if ($e->[1] == 0) {
			my ($n, $rule, $what) = @$x;
			if ($what eq 'enable') {
				if (!$all{$rule}) {
					push @out, [$n, 'BADWAIVER',
						"enable $rule without a disable $rule all"];
					next;
				}
				push @out, [$all{$rule}[0], 'UNUSEDWAIVER',
					"disable $rule all waives nothing"]
					if !$all{$rule}[1];
				delete $all{$rule};
			} elsif ($what eq 'all') {
				$all{$rule} = [$n, 0];
			} else {
				push @{$count{$rule}}, [$n, $what];
			}
			next;
		}
		my $rule = $x->[1];
		if ($all{$rule}) {
			$all{$rule}[1]++;
			next;
		}
		my $q = $count{$rule};
		if ($q && @$q) {
			shift @$q if --$q->[0][1] == 0;
			next;
		}
		push @out, $x;
	}
	for my $rule (sort keys %count) {
		push @out, [$_->[0], 'UNUSEDWAIVER',
			"$_->[1] more finding(s) of $rule to waive than there are"]
			for @{$count{$rule}};
	}
	for my $rule (sort keys %all) {
		push @out, [$all{$rule}[0], 'UNUSEDWAIVER',
			"disable $rule all waives nothing"] if !$all{$rule}[1];
	}
	for my $f (sort { $a->[0] <=> $b->[0] || $order{$a->[1]} <=> $order{$b->[1]} }
		   @out) {
		print "$file:$f->[0]: $f->[1]: $f->[2]\n";
		$total++;
	}
}

while (my $f = <STDIN>) {
	chomp $f;
	check_file($f) if $f ne '';
}
print STDERR "checksrc: $total finding(s) in $nfiles file(s)\n" if $total;
exit 2 if $ioerr;
exit($total ? 1 : 0);
EOF
)
list "$@" | perl -e "$prog"
