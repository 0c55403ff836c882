# SPDX-License-Identifier: MIT
# klab: one Makefile for every binary, the tests and the install.
#
#   make                 build everything into build/
#   make check           checksrc, sanitizer build (ASan+UBSan, -Werror), tests
#   make checksrc        the house style: scripts/checksrc.sh CHECKSRC_DIRS
#   make check-slow      the slow tier: real kernel builds and rig runs (CI)
#   make check-lab       the lab tier: long real-rig runs, the soak (not in CI)
#   make check-faults    the fault suite: every fault case (docs/FAULTS.md)
#   make bench           benchmarks, results into docs/PERFORMANCE.md
#   make bench-load      klabd at lab scale (BENCH_LOAD_FLAGS=--quick)
#   make soak            klabd + two QEMU rigs for SOAK_MINUTES (120)
#   make fuzz            every libFuzzer target for FUZZ_TIME s (clang)
#   make fuzz-smoke      each target briefly + the fuzz/crashes/ replays
#   make install         PREFIX=/usr/local DESTDIR=
#   make SANITIZE=1 O=build/san   the sanitizer build by hand

O ?= build
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
PKGS = libmicrohttpd jansson sqlite3 libcurl libcrypto

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS := $(shell pkg-config --libs $(PKGS))
URING_LIBS := $(shell pkg-config --libs liburing 2>/dev/null)
URING_CFLAGS := $(if $(URING_LIBS),-DHAVE_LIBURING $(shell pkg-config --cflags liburing),)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN = -Wall -Wextra -Wstrict-prototypes -Wvla -Wno-unused-parameter \
       -Wmissing-prototypes -Wshadow -Wformat=2
OPT ?= -O2 -g
CFLAGS ?=
override CFLAGS += -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -I. $(PKG_CFLAGS) \
	$(URING_CFLAGS) -MMD -MP
LDLIBS = $(PKG_LIBS) $(URING_LIBS) -lpthread -lm

ifeq ($(SANITIZE),1)
override CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
override LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(WERROR),1)
override CFLAGS += -Werror
endif

# Code shared by several binaries: lib/, the data layer and judge/ (the
# comparison model and verdict rules: pure functions over samples).
CORE_SRC := $(wildcard lib/*.c) $(wildcard db/*.c) $(wildcard judge/*.c)
# The controller, one room per stage of the pipeline (docs/ARCHITECTURE.md):
# klabd/ (main, configuration, database pool), http/ (server, routes,
# auth, one handler file per resource), flow/ (submissions, comparisons,
# bisections, tracks, alerts, change points, the driver), lab/ (rig
# manager, rig kinds, catalog, builder), and web/ (pages).  The klab CLI,
# cli/, has its own files, not linked into klabd.
CLI_SRC := $(wildcard cli/*.c)
CTL_MAINS := klabd/klabd.c
CTL_SRC := $(filter-out $(CTL_MAINS),$(wildcard klabd/*.c http/*.c \
	flow/*.c lab/*.c)) $(wildcard web/*.c)
# Workload programs: one main per program, the rest shared.
WL_PROGS := tiotest rio iops klab-run
WL_MAINS := $(patsubst %,workloads/%.c,$(WL_PROGS))
WL_SRC := $(filter-out $(WL_MAINS),$(wildcard workloads/*.c))
AGENT_SRC := $(wildcard agent/*.c)

CORE_OBJ := $(CORE_SRC:%.c=$(O)/%.o)
CTL_OBJ := $(CTL_SRC:%.c=$(O)/%.o)
WL_OBJ := $(WL_SRC:%.c=$(O)/%.o)
AGENT_OBJ := $(AGENT_SRC:%.c=$(O)/%.o)

BINS := $(O)/bin/klabd $(O)/bin/klab $(patsubst %,$(O)/bin/%,$(WL_PROGS))
ifneq ($(AGENT_SRC),)
BINS += $(O)/bin/klab-agent
endif

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)

all: $(BINS)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(O)/libcore.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(O)/libctl.a: $(CTL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(O)/libwl.a: $(WL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(O)/bin/klabd: $(O)/klabd/klabd.o $(O)/libctl.a $(O)/libwl.a \
		$(O)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(O)/bin/klab: $(CLI_SRC:%.c=$(O)/%.o) $(O)/libctl.a $(O)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(O)/bin/klab-agent: $(AGENT_OBJ) $(O)/libwl.a $(O)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(O)/bin/%: $(O)/workloads/%.o $(O)/libwl.a $(O)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/tests/%: tests/unit/%.c $(O)/libctl.a $(O)/libwl.a $(O)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.a,$^) $(CMOCKA_LIBS) $(LDLIBS)

unit: $(UNIT_BINS)

# The test suite: a plain build (what goes into rig images), a sanitizer
# build that the unit and black-box tests run, then every test family,
# TEST_JOBS scripts at a time (tests/run.sh -j; those marked "klab-test:
# alone" after the rest, one by one).  The slow and lab tiers run one at a
# time: their tests build kernels for the next ones, or measure.
TEST_JOBS ?= 2
check: checksrc
	$(MAKE) all WERROR=1
	$(MAKE) O=build/san SANITIZE=1 WERROR=1 all unit
	tests/run.sh -j $(TEST_JOBS)

# The house style (scripts/checksrc.sh, issue 30) and the rooms' order
# (scripts/rooms.sh: no include points up), checked before anything
# is built.  Every directory with C files: each of the controller's rooms
# (klabd/ lab/ flow/ http/ cli/) passes it since the split from
# controller/ (issue 30).
CHECKSRC_DIRS = lib db judge web workloads agent bench fuzz tests cli klabd lab \
	flow http
checksrc:
	scripts/checksrc.sh $(CHECKSRC_DIRS)
	scripts/rooms.sh

# The slow tier's scripts: those that skip without KLAB_SLOW (t4001-t4005,
# t4007 and t4008 run on the fake tree in `make check`, not again here).
SLOW_TESTS = tests/t4006-*.sh tests/t41*.sh tests/t51*.sh
check-slow: all
	KLAB_SLOW=1 KLAB_BIN=$(CURDIR)/build/bin tests/run.sh $(SLOW_TESTS)

# The lab tier, not in CI: long real-rig runs (t7NNN), results recorded in
# docs/ with their date and commit: t4100 with every shipped patch (and
# 6.12 when installed), t7001 the A/A, t7002 the soak (bench/soak.sh for
# KLAB_SOAK_MINUTES, default 120), t7003 a series bisection, t7004 the
# canary on a job queue, t7005 the scheduler control with writeback
# throttling off, t7006 elv-lowlat against its base on the hdd model.
# (The regression robot on a 12-commit linux-source-6.1 branch, t7007,
# became the slow tier's t5104.)
# Its runs take hours (KLAB_SOAK_MINUTES), so each script's time limit
# (tests/run.sh) is a day here.
check-lab: all
	KLAB_LAB=1 KLAB_SLOW=1 KLAB_TEST_LIMIT=86400 \
		KLAB_BIN=$(CURDIR)/build/bin tests/run.sh \
		tests/t4100-build-real.sh tests/t7*.sh

# The fault suite (docs/FAULTS.md): the cheap cases (t22NN, also in
# make check), the older single cases, and the QEMU ones (t8NNN, here only).
check-faults:
	$(MAKE) all WERROR=1
	$(MAKE) O=build/san SANITIZE=1 WERROR=1 all
	KLAB_FAULTS=1 tests/run.sh tests/t22[0-9][0-9]-fault-*.sh \
		tests/t3101-*.sh tests/t3201-*.sh tests/t3203-*.sh tests/t8*.sh

bench: all
	bench/run.sh

# klabd at lab scale (1,000 agents, 10 min; BENCH_LOAD_FLAGS=--quick or
# --limit) and the soak on its own (two QEMU rigs, SOAK_MINUTES, default
# 120; check-lab runs it as t7002); docs/PERFORMANCE.md
bench-load: all
	bench/bench_load.sh $(BENCH_LOAD_FLAGS)

soak: all
	bench/soak.sh

# Fuzz targets (fuzz/fuzz_*.c, libFuzzer): a clang build of the library
# code with coverage, ASan and UBSan into build/fuzz/ (fuzz-build, which
# fuzz/run.sh calls), then each target for a set time.
# Findings land in build/fuzz/findings/TARGET/; see docs/PERFORMANCE.md.
FUZZ_CC ?= clang
FUZZ_TIME ?= 300
FUZZ_SMOKE_TIME ?= 10
FUZZ_TARGETS := import query config jobspec cmdline api series result suite patchcheck kexecelf
FUZZ_AGENT_OBJ := $(O)/agent/cmdline.o $(O)/agent/jobspec.o

fuzz-build:
	$(MAKE) O=build/fuzz CC=$(FUZZ_CC) SANITIZE=1 OPT='-O1 -g' \
		CFLAGS=-fsanitize=fuzzer-no-link fuzz-bins

fuzz-bins: $(FUZZ_TARGETS:%=$(O)/bin/fuzz_%)

$(O)/bin/fuzz_%: fuzz/fuzz_%.c $(FUZZ_AGENT_OBJ) $(O)/libctl.a $(O)/libwl.a \
		$(O)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ \
		$(filter %.c %.o %.a,$^) $(LDLIBS)

fuzz:
	fuzz/run.sh -t $(FUZZ_TIME) $(FUZZ_TARGETS)

fuzz-smoke:
	fuzz/run.sh --smoke -t $(FUZZ_SMOKE_TIME) $(FUZZ_TARGETS)

# Issue 13's bar: each target to FUZZ_LONG_RUNS executions or
# FUZZ_LONG_TIME s, whichever comes first (hours for all of them).
FUZZ_LONG_RUNS ?= 10000000
FUZZ_LONG_TIME ?= 3600
fuzz-long:
	fuzz/run.sh -t $(FUZZ_LONG_TIME) $(FUZZ_TARGETS) -- -runs=$(FUZZ_LONG_RUNS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/klab/workloads
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	cp -r kernels $(DESTDIR)$(PREFIX)/share/klab/
	cp -r workloads/suites $(DESTDIR)$(PREFIX)/share/klab/workloads/
	install -d $(DESTDIR)$(PREFIX)/share/doc/klab
	install -m 644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/klab/
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|@PREFIX@|$(PREFIX)|g' klabd/klabd.service > \
		$(DESTDIR)$(PREFIX)/lib/systemd/system/klabd.service

clean:
	rm -rf build

.PHONY: all unit check check-slow check-lab check-faults bench install clean \
	fuzz fuzz-build fuzz-bins fuzz-smoke fuzz-long bench-load soak checksrc
-include $(shell find $(O) -name '*.d' 2>/dev/null)
