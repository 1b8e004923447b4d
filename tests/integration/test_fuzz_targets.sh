#!/usr/bin/env bash
# test_fuzz_targets.sh - every libFuzzer target (fuzz/fuzz_*.c) still builds
# against the library, and replays its committed seed corpus
# (fuzz/corpus/NAME/, regress-* included) with its invariant checks and
# ASan+UBSan on, then a few hundred mutations from a fixed seed. Catches a
# target left behind by an API change (make test does not otherwise compile
# fuzz/) and a parser that breaks an invariant on an input that once crashed
# it. Time-bounded fuzzing is `make fuzz`.
# The targets are their own clang ASan build, at -O0 (build-fuzz-check/:
# it compiles five to nine times faster than make fuzz's -O1, and a replay
# of a few hundred inputs does not need the speed), the same in make test
# and make asan: tests/run.sh runs this once per .ci/run.
# suite: long
# suite: once
. "$(dirname "$0")/lib.sh"

if ! command -v clang >/dev/null; then
	skip "fuzz targets" "clang is not installed (make deps installs it)"
	exit 0
fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' |
	clang -x c -fsanitize=fuzzer -o "$WORK/probe" - >"$WORK/probe.log" 2>&1; then
	skip "fuzz targets" "clang cannot link -fsanitize=fuzzer (libFuzzer missing): $(head -n 1 "$WORK/probe.log")"
	exit 0
fi

cd "$TOP" || exit 1
bins=()
for src in fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	bins+=("build-fuzz-check/$name")
done
# the fuzz objects need the BPF skeletons of the plain build (-Ibuild/bpf)
if make -j"$(nproc)" --no-print-directory BUILD=build FUZZ_DIR=build-fuzz-check FUZZ_OPT=-O0 "${bins[@]}" >"$WORK/build.log" 2>&1; then
	pass "all ${#bins[@]} fuzz targets build"
else
	fail "fuzz targets build" "$(grep -m 3 -E 'error' "$WORK/build.log" | tr '\n' ' ')"
	exit 0
fi

# Each target starts from its committed seeds plus those it writes itself
# (SCX_FUZZ_SEED_DIR), replays them, then makes RUNS mutations from a fixed
# libFuzzer seed: the same inputs on every run, so no result depends on time.
RUNS=300
for bin in "${bins[@]}"; do
	name=${bin#build-fuzz-check/fuzz_}
	corpus="$WORK/corpus-$name"
	mkdir -p "$corpus"
	cp fuzz/corpus/"$name"/* "$corpus/" 2>/dev/null
	committed=$(find "$corpus" -type f | wc -l)
	if (cd "$WORK" && SCX_FUZZ_SEED_DIR="$corpus" "$TOP/$bin" -seed=1 -runs=$RUNS -timeout=60 \
		-artifact_prefix="$WORK/crash-$name-" "$corpus") >"$WORK/$name.log" 2>&1; then
		pass "fuzz_$name: $committed committed seeds, its own, and $RUNS fixed mutations"
	else
		fail "fuzz_$name" "$(grep -m 3 -E 'ERROR|runtime error|FUZZ|Assertion|abort' "$WORK/$name.log" | tr '\n' ' ')"
	fi
done
