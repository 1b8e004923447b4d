# Makefile - builds build/scxprof, the static library build/libscxprof.a of all
# stages, the tests, fuzzers and benchmarks. `make help` lists the targets.

# ARCH: the target, in the kernel's names (x86, arm64); the host's by default.
# Another ARCH cross-builds with Debian's cross toolchain and multiarch -dev
# packages (make deps), into build/ARCH/ (the static binary: build/scxprof-static-ARCH).
HOST_ARCH := $(shell uname -m | sed 's/^x86_64$$/x86/; s/^aarch64$$/arm64/')
ARCH     ?= $(HOST_ARCH)
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu-,x86_64-linux-gnu-)
CC       := $(CROSS_COMPILE)gcc
BUILD    ?= build/$(ARCH)
MULTIARCH := $(shell $(CC) -dumpmachine 2>/dev/null)
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(MULTIARCH)/pkgconfig:/usr/share/pkgconfig pkg-config
STATIC_BIN ?= build/scxprof-static-$(ARCH)
endif
CC       ?= gcc
AR       := $(CROSS_COMPILE)ar
BUILD    ?= build
STATIC_BIN ?= $(BUILD)/scxprof-static
PREFIX   ?= /usr/local
DESTDIR  ?=
SAN      ?=

PKG_CONFIG ?= pkg-config
PKGS      := libelf libarchive libpcre2-8 json-c libbpf zlib libzstd
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

# OPT: -O2, or -O1 under SAN=1 (make asan): what ASan's authors advise for
# it, and its objects compile in about 60% of -O2's time
OPT      ?= $(if $(filter 1,$(SAN)),-O1,-O2)
CFLAGS   ?= $(OPT) -g
# -ffp-contract=off: no fused multiply-add (gcc contracts a*b+c on arm64 by
# default), so every arch rounds as x86-64 does and writes the same outputs
# -ffile-prefix-map: no build directory in the objects' debug info, so the
# same commit builds the same bytes in any checkout (make dist)
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -ffp-contract=off -ffile-prefix-map=$(CURDIR)=. -I. $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lZydis -lpfm -liberty -lm -lpthread
ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
endif

LIB_SRCS  := $(sort $(shell find lib process record extract llc place report pipeline -name '*.c'))
# cmd/build_info.c is compiled once per link (dynamic, static): below
CMD_SRCS  := $(filter-out cmd/build_info.c,$(sort $(wildcard cmd/*.c)))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
WORKLOAD_SRCS := $(sort $(wildcard tests/workloads/*.c))

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CMD_OBJS  := $(CMD_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)
WORKLOADS := $(WORKLOAD_SRCS:tests/workloads/%.c=$(BUILD)/workloads/%)

LIB  := $(BUILD)/libscxprof.a
BIN  := $(BUILD)/scxprof
UNIT := $(BUILD)/unit-tests

.PHONY: all deps test test-run unit integration asan fuzz bench demo install clean help check-deps static static-arm64 dist FORCE

all: $(BIN) $(LIB)

help:
	@echo "make            build $(BIN) and $(LIB)"
	@echo "make deps       install missing Debian packages and test tools (root)"
	@echo "make test       check deps, build, run unit + integration tests"
	@echo "make asan       the same tests under ASan+UBSan (build-asan/)"
	@echo "make fuzz       libFuzzer targets, FUZZ_SECONDS each (default 60)"
	@echo "make bench      benchmarks against perf (ratios, median of 3), the suite's studies"
	@echo "make install    PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)"
	@echo "make static     $(STATIC_BIN): one statically linked file to copy to a host"
	@echo "make static-arm64  the same for aarch64, cross-built: build/scxprof-static-arm64"
	@echo "                (= make static ARCH=arm64; objects in build/arm64/)"
	@echo "make dist       build/dist/: a reproducible tarball of both static binaries,"
	@echo "                the man page, the schemas and SHA256SUMS"

deps:
	@bash scripts/deps.sh install

check-deps:
	@bash scripts/deps.sh check

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CMD_OBJS) $(BUILD)/obj/cmd/build_info.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CMD_OBJS) $(BUILD)/obj/cmd/build_info.o $(LIB) $(LDLIBS)

# cmd/opts.c is the one part of the CLI with unit tests of its own (test_opts.c)
$(UNIT): $(UNIT_OBJS) $(LIB) $(BUILD)/obj/cmd/opts.o
	$(CC) $(LDFLAGS) -o $@ $(UNIT_OBJS) $(BUILD)/obj/cmd/opts.o $(LIB) $(LDLIBS) -lcriterion

# Workloads are test subjects, not our code: never sanitized (ASan's shadow
# memory would add page faults on the shared zero page to every thread).
WORKLOAD_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I.
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -lpthread
# statically linked: the one program test_static.sh's bare root holds beside scxprof-static
$(BUILD)/workloads-static/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) $(WORKLOAD_CFLAGS) -static -o $@ $< -lpthread
# (without make deps' Zydis source or cross compiler, test_static.sh SKIPs, saying so)
STATIC_TEST_BINS = $(if $(SAN),,$(if $(ZYDIS_SRC),$(STATIC_BIN) $(BUILD)/workloads-static/scxprof-workload))

# the build uses every cpu; tests/run.sh runs the scripts two at a time
NPROC := $(shell nproc 2>/dev/null || echo 2)
# the static binaries too (test_static.sh), but not under SAN=1: ASan cannot
# link statically, and the static test is "# suite: once"
# test-run is a make of its own, after check-deps: what make deps installs
# (Zydis's source, the cross compiler) is seen by a make that reads this
# file afresh, not the one that ran check-deps (its wildcards were read before)
test: check-deps
	@$(MAKE) --no-print-directory test-run
test-run:
	@$(MAKE) -j$(NPROC) --no-print-directory $(BIN) $(UNIT) $(WORKLOADS) $(BENCH_TOOLS) $(STATIC_TEST_BINS)
	$(if $(SAN),,$(if $(filter x86,$(HOST_ARCH)),$(if $(ZYDIS_SRC),$(if $(shell command -v aarch64-linux-gnu-gcc),@$(MAKE) -j$(NPROC) --no-print-directory static-arm64))))
	@BUILD=$(BUILD) bash tests/run.sh

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 test

FUZZ_SECONDS ?= 60
# FUZZ_DIR, FUZZ_OPT: make fuzz's coverage-guided runs want fast code (-O1);
# test_fuzz_targets.sh's replay of a few hundred inputs builds its own at -O0
# (build-fuzz-check/), which compiles five to nine times faster
FUZZ_DIR ?= build-fuzz
FUZZ_OPT ?= -O1
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=$(FUZZ_DIR)/%)
# the library is compiled once for all targets (instrumented, not linked with libFuzzer's main)
FUZZ_CFLAGS = -std=gnu11 -g $(FUZZ_OPT) -D_GNU_SOURCE -I. $(PKG_CFLAGS) -I$(BUILD)/bpf -fsanitize=address,undefined \
	      -fno-sanitize-recover=undefined
FUZZ_OBJS := $(LIB_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_util.h $(FUZZ_OBJS)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(LDLIBS)
fuzz: check-deps $(FUZZ_BINS)
	@bash fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

# bench tools: bench/NAME.c -> $(BUILD)/bench/NAME (linked with the library)
BENCH_TOOLS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(sort $(wildcard bench/*.c)))
$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDLIBS)

bench: check-deps
	@$(MAKE) --no-print-directory $(BIN) $(WORKLOADS) $(BENCH_TOOLS)
	@BUILD=$(BUILD) bash bench/run.sh

demo: check-deps
	@$(MAKE) --no-print-directory $(BIN) $(WORKLOADS)
	@BUILD=$(BUILD) bash scripts/demo.sh

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/scxprof
	install -m 0644 docs/scxprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/scxprof.1

clean:
	rm -rf build build-asan build-fuzz build-fuzz-check

# BPF programs, libbpf-tools style: bpf/NAME.bpf.c -> $(BUILD)/bpf/NAME.bpf.o ->
# $(BUILD)/bpf/NAME.skel.h (struct NAME_bpf), against a vmlinux.h generated from
# the running kernel's BTF. Nothing generated is committed.
BPF_CLANG ?= clang
BPF_SRCS  := $(sort $(wildcard bpf/*.bpf.c))
BPF_OBJS  := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.bpf.o)
BPF_SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.skel.h)
CFLAGS    += -I$(BUILD)/bpf
.SECONDARY: $(BPF_OBJS)

# The target arch selects bpf_tracing.h's pt_regs layout (PT_REGS_*, BPF_KPROBE).
# vmlinux.h comes from this host's BTF whatever ARCH is (docs/install.md: the
# programs are CO-RE, their types relocated at load against the target's BTF);
# vmlinux.src says which kernel and arch it came from, for --version.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH)
$(BUILD)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	bpftool btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@
	echo "the BTF of Linux $$(uname -r) ($$(uname -m))" > $(BUILD)/bpf/vmlinux.src

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BUILD)/bpf/vmlinux.h $(wildcard bpf/*.h)
	$(BPF_CLANG) $(BPF_CFLAGS) -ffile-prefix-map=$(CURDIR)=. -I$(BUILD)/bpf -I. -c $< -o $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	bpftool gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/record/streams/hints_tracer.o: $(BUILD)/bpf/hints.skel.h
$(BUILD)/obj/record/streams/sched_stream.o: $(BUILD)/bpf/sched.skel.h
# the fuzzers compile every library source, record/ included
$(FUZZ_OBJS): $(BPF_SKELS)

# test driver of the hints tracer: links the library (the generic workloads rule does not)
$(BUILD)/workloads/hints-trace: tests/workloads/hints-trace.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) $(LIB) $(LDLIBS)

# ---- what this binary is (scxprof --version, cmd/build_info.c): its link,
# the commit, how the BPF programs were built. build_info.h is rewritten only
# when its text changes, so an unchanged commit rebuilds nothing.
GIT_COMMIT = $(shell git -C $(CURDIR) describe --always --dirty --abbrev=12 --exclude='*' 2>/dev/null || echo unknown)
$(BUILD)/build_info.h: FORCE $(BPF_OBJS)
	@mkdir -p $(dir $@)
	@{ echo '#define SCXPROF_COMMIT "$(GIT_COMMIT)"'; \
	  echo "#define SCXPROF_ARCH \"$$($(CC) -dumpmachine | cut -d- -f1)\""; \
	  echo "#define SCXPROF_BPF \"$(notdir $(BPF_CLANG)) $$($(BPF_CLANG) -dumpversion) $(BPF_CFLAGS), vmlinux.h from $$(cat $(BUILD)/bpf/vmlinux.src 2>/dev/null || echo 'an unknown kernel'), objects sha256 $$(cat $(BPF_OBJS) | sha256sum | cut -c1-12)\""; \
	} > $@.tmp && if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/obj/cmd/build_info.o: cmd/build_info.c cmd/build_info.h $(BUILD)/build_info.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -include $(BUILD)/build_info.h -DSCXPROF_LINK='"dynamic"' -c $< -o $@
$(BUILD)/obj/cmd/build_info-static.o: cmd/build_info.c cmd/build_info.h $(BUILD)/build_info.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -include $(BUILD)/build_info.h -DSCXPROF_LINK='"static"' -c $< -o $@

# ---- make static: one statically linked executable, glibc included, every
# command in it (docs/install.md). Debian ships .a archives of every library
# but Zydis: its Debian source (make deps fetches it to ZYDIS_SRC) is compiled
# here for the target. cmd/static/ holds what only this link needs. Only the
# libraries linked are named: libarchive's xml2, icu, lzma, bz2, nettle, acl
# and lz4 belong to formats scxprof never writes or reads, and a link that
# pulled one in would fail here rather than grow by 31 MB of ICU data.
ZYDIS_SRC ?= $(patsubst %/,%,$(dir $(firstword $(wildcard /usr/local/src/scxprof-deps/zydis-*/CMakeLists.txt))))
ZYDIS_OBJS := $(patsubst $(ZYDIS_SRC)/src/%.c,$(BUILD)/zydis/%.o,$(wildcard $(ZYDIS_SRC)/src/*.c))
STATIC_OBJS := $(BUILD)/obj/cmd/build_info-static.o $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard cmd/static/*.c)))
STATIC_LIBS := -lelf -larchive -lpcre2-8 -ljson-c -lbpf -lelf -lz -lzstd -lpfm -liberty -lm -lpthread

$(BUILD)/zydis/%.o: $(ZYDIS_SRC)/src/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=gnu11 -DZYDIS_STATIC_BUILD -DZYCORE_STATIC_BUILD -I$(ZYDIS_SRC)/include -I$(ZYDIS_SRC)/src -c $< -o $@
$(BUILD)/libZydis.a: $(ZYDIS_OBJS)
	@[ -n "$(ZYDIS_SRC)" ] || { echo "make static: no Zydis source in /usr/local/src/scxprof-deps: run make deps" >&2; exit 1; }
	rm -f $@
	$(AR) rcs $@ $^

static: $(STATIC_BIN)
static-arm64:
	@$(MAKE) --no-print-directory ARCH=arm64 BUILD=build/arm64 static

$(STATIC_BIN): $(CMD_OBJS) $(STATIC_OBJS) $(LIB) $(BUILD)/libZydis.a
	@mkdir -p $(dir $@)
	$(CC) -static $(LDFLAGS) -o $@.tmp $(CMD_OBJS) $(STATIC_OBJS) $(LIB) $(BUILD)/libZydis.a $(STATIC_LIBS) && mv $@.tmp $@

# ---- make dist: build/dist/scxprof-VERSION.tar.gz, both static binaries
# (scxprof-x86_64, scxprof-aarch64), the man page, the schemas and SHA256SUMS
# of them, under one directory scxprof-VERSION/; reproducible: the same commit
# gives the same bytes (every mtime the commit's time, entries sorted, owner
# and group 0, fixed modes, gzip -n: no name or time in its header).
# build/dist/scxprof-VERSION.tar.gz.sha256 is the tarball's own sum.
VERSION := $(shell sed -n 's/^\#define SCXPROF_VERSION "\(.*\)"/\1/p' lib/version.h)
DIST := build/dist/scxprof-$(VERSION)
dist:
	@$(MAKE) --no-print-directory ARCH=$(HOST_ARCH) BUILD=build SAN= build/scxprof-static
	@$(MAKE) --no-print-directory SAN= static-arm64
	@git diff --quiet HEAD 2>/dev/null || echo "make dist: the tree has changes: the binaries say -dirty, and the bytes are not the commit's" >&2
	rm -rf $(DIST) $(DIST).tar.gz $(DIST).tar.gz.sha256
	install -d -m 0755 $(DIST) $(DIST)/schemas
	install -m 0755 build/scxprof-static $(DIST)/scxprof-x86_64
	install -m 0755 build/scxprof-static-arm64 $(DIST)/scxprof-aarch64
	install -m 0644 docs/scxprof.1 $(DIST)/scxprof.1
	install -m 0644 $(sort $(wildcard schemas/*)) $(DIST)/schemas/
	cd $(DIST) && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | xargs sha256sum > SHA256SUMS && chmod 0644 SHA256SUMS
	T=$$(git log -1 --format=%ct 2>/dev/null || echo 0); \
	tar -C build/dist --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
		--mtime=@$$T -cf - scxprof-$(VERSION) | gzip -9 -n > $(DIST).tar.gz.tmp && mv $(DIST).tar.gz.tmp $(DIST).tar.gz
	cd build/dist && sha256sum scxprof-$(VERSION).tar.gz > scxprof-$(VERSION).tar.gz.sha256
	@cat $(DIST).tar.gz.sha256

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d)
