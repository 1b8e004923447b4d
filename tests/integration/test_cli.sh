#!/usr/bin/env bash
# test_cli.sh - the command table, help, exit codes and usage errors.
. "$(dirname "$0")/lib.sh"

# expect_rc NAME RC CMD...: CMD must exit with RC
expect_rc() {
	local name=$1 want=$2 rc
	shift 2
	"$@" >"$WORK/o" 2>"$WORK/e"
	rc=$?
	[ $rc -eq "$want" ] && pass "$name" || fail "$name" "exit $rc, want $want: $(head -c 300 "$WORK/e")"
}
expect_rc "--version exits 0" 0 "$SCXPROF" --version
check "--version prints the version" grep -qE '^scxprof [0-9]+\.[0-9]+\.[0-9]+$' "$WORK/o"
expect_rc "--help exits 0" 0 "$SCXPROF" --help
check "--help lists the three commands" bash -c "grep -q record '$WORK/o' && grep -q process '$WORK/o' && grep -q extract '$WORK/o'"
expect_rc "no command: usage, exit 2" 2 "$SCXPROF"
expect_rc "unknown command: exit 2" 2 "$SCXPROF" frobnicate
check "unknown command is named" grep -q "'frobnicate' is not a scxprof command" "$WORK/e"
expect_rc "unknown global option: exit 2" 2 "$SCXPROF" --bogus
expect_rc "process --help exits 0" 0 "$SCXPROF" process --help
check "process --help documents every option" bash -c "for o in --file --output --symfs --force --no-filter --verbose; do grep -q -- \"\$o\" '$WORK/o' || exit 1; done"
expect_rc "process: unknown option exit 2" 2 "$SCXPROF" process --bogus
check "process: unknown option named" grep -q "unknown option '--bogus'" "$WORK/e"
expect_rc "process: missing -f exit 2" 2 "$SCXPROF" process
expect_rc "process: -f without value exit 2" 2 "$SCXPROF" process -f
expect_rc "process: stray argument exit 2" 2 "$SCXPROF" process -f x y
expect_rc "record: -c with -F is a usage error" 2 "$SCXPROF" record -c 1 -F 100
check "record: says why" grep -q "exclude each other" "$WORK/e"
expect_rc "record: bad --backend is a usage error" 2 "$SCXPROF" record --backend nope
expect_rc "record: -f must end in .tar.gz" 2 "$SCXPROF" record -f out.zip
expect_rc "record: -t must be a number" 2 "$SCXPROF" record -t soon
expect_rc "record: nothing to record is a usage error" 2 "$SCXPROF" record --disable-mem-trace --disable-sched-trace
expect_rc "extract: not implemented yet, exit 1" 1 "$SCXPROF" extract -f x
expect_rc "record --help exits 0" 0 "$SCXPROF" record --help
check "record --help documents every option" bash -c "for o in --output --file --timeout --ldlat --hints-map --hints-map-ring-sz --hints-poll-ms --disable-archive --disable-mem-trace --disable-sched-trace --backend --event --count --freq --stores --mmap-pages --verbose; do grep -q -- \"\$o\" '$WORK/o' || { echo missing \$o; exit 1; }; done"

# make install PREFIX= DESTDIR=: the binary and the man page, nothing else needed
if make -s -C "$TOP" install BUILD="$BUILD" PREFIX=/usr DESTDIR="$WORK/inst" >"$WORK/inst.log" 2>&1; then
	check "install: binary runs from DESTDIR" "$WORK/inst/usr/bin/scxprof" --version
	check "install: man page installed" test -s "$WORK/inst/usr/share/man/man1/scxprof.1"
	if command -v man >/dev/null; then
		check "install: man page renders with every command section" bash -c \
			"man -l '$WORK/inst/usr/share/man/man1/scxprof.1' 2>/dev/null | grep -q '^PROCESS' && man -l '$WORK/inst/usr/share/man/man1/scxprof.1' 2>/dev/null | grep -q '^RECORD' && man -l '$WORK/inst/usr/share/man/man1/scxprof.1' 2>/dev/null | grep -q '^EXTRACT'"
	fi
else
	fail "make install" "$(tail -n 3 "$WORK/inst.log")"
fi
