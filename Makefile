# Makefile - builds build/scxprof, the static library build/libscxprof.a of all
# stages, the tests, fuzzers and benchmarks. `make help` lists the targets.

CC       ?= gcc
BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
SAN      ?=

PKGS      := libelf libarchive libpcre2-8 json-c libbpf zlib libzstd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. $(PKG_CFLAGS)
LDLIBS   += $(PKG_LIBS) -lZydis -lpfm -liberty -lm -lpthread
ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
endif

LIB_SRCS  := $(sort $(shell find lib process record extract report pipeline -name '*.c'))
CMD_SRCS  := $(sort $(wildcard cmd/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
WORKLOAD_SRCS := $(sort $(wildcard tests/workloads/*.c))

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CMD_OBJS  := $(CMD_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)
WORKLOADS := $(WORKLOAD_SRCS:tests/workloads/%.c=$(BUILD)/workloads/%)

LIB  := $(BUILD)/libscxprof.a
BIN  := $(BUILD)/scxprof
UNIT := $(BUILD)/unit-tests

.PHONY: all deps test unit integration asan fuzz bench demo install clean help check-deps

all: $(BIN) $(LIB)

help:
	@echo "make            build $(BIN) and $(LIB)"
	@echo "make deps       install missing Debian packages and test tools (root)"
	@echo "make test       check deps, build, run unit + integration tests"
	@echo "make asan       the same tests under ASan+UBSan (build-asan/)"
	@echo "make fuzz       libFuzzer targets, FUZZ_SECONDS each (default 60)"
	@echo "make bench      benchmarks against perf (ratios, median of 3), the suite's studies"
	@echo "make install    PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)"

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
	ar rcs $@ $^

$(BIN): $(CMD_OBJS) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CMD_OBJS) $(LIB) $(LDLIBS)

# cmd/opts.c is the one part of the CLI with unit tests of its own (test_opts.c)
$(UNIT): $(UNIT_OBJS) $(LIB) $(BUILD)/obj/cmd/opts.o
	$(CC) $(LDFLAGS) -o $@ $(UNIT_OBJS) $(BUILD)/obj/cmd/opts.o $(LIB) $(LDLIBS) -lcriterion

# Workloads are test subjects, not our code: never sanitized (ASan's shadow
# memory would add page faults on the shared zero page to every thread).
WORKLOAD_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I.
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -lpthread

# the build uses every cpu; tests/run.sh runs the scripts two at a time
NPROC := $(shell nproc 2>/dev/null || echo 2)
test: check-deps
	@$(MAKE) -j$(NPROC) --no-print-directory $(BIN) $(UNIT) $(WORKLOADS) $(BENCH_TOOLS)
	@BUILD=$(BUILD) bash tests/run.sh

asan:
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 test

FUZZ_SECONDS ?= 60
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=build-fuzz/%)
# the library is compiled once for all targets (instrumented, not linked with libFuzzer's main)
FUZZ_CFLAGS = -std=gnu11 -g -O1 -D_GNU_SOURCE -I. $(PKG_CFLAGS) -I$(BUILD)/bpf -fsanitize=address,undefined \
	      -fno-sanitize-recover=undefined
FUZZ_OBJS := $(LIB_SRCS:%.c=build-fuzz/obj/%.o)
build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
build-fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_util.h $(FUZZ_OBJS)
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
	rm -rf build build-asan build-fuzz

# BPF programs, libbpf-tools style: bpf/NAME.bpf.c -> $(BUILD)/bpf/NAME.bpf.o ->
# $(BUILD)/bpf/NAME.skel.h (struct NAME_bpf), against a vmlinux.h generated from
# the running kernel's BTF. Nothing generated is committed.
BPF_CLANG ?= clang
BPF_SRCS  := $(sort $(wildcard bpf/*.bpf.c))
BPF_OBJS  := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.bpf.o)
BPF_SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(BUILD)/bpf/%.skel.h)
CFLAGS    += -I$(BUILD)/bpf
.SECONDARY: $(BPF_OBJS)

$(BUILD)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	bpftool btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BUILD)/bpf/vmlinux.h $(wildcard bpf/*.h)
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BUILD)/bpf -I. -c $< -o $@

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

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d)
