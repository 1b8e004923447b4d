#!/usr/bin/env bash
# test_static.sh - the one file to copy to a host (issue 35, docs/install.md):
# - build/scxprof-static is statically linked (ldd: "not a dynamic
#   executable", no program interpreter) and says so in --version;
# - on a bare root: a new mount namespace whose root (chroot) holds only
#   scxprof-static and a static workload, with /proc, /sys (tracefs, debugfs,
#   cgroup2, bpffs and the BTF under it, as the host has them; tracefs and
#   debugfs mounted where systemd mounts them when the host has not), /dev
#   and a /tmp of the test's own, and no /usr, /lib or /etc: record -t 3 of the
#   workload (its groups in a cgroup of this test's own), process, extract,
#   report all run, the planted groups are found, and the config equals the
#   dynamic build's extract of the same profile byte for byte;
# - process and extract of the suite's fixtures (profile_basic,
#   profile_unordered, the SPE fixtures, extract's JSONL fixtures, and
#   report) give byte-identical outputs with the dynamic build, the static
#   one and the arm64 static one (build/scxprof-static-arm64, run under
#   qemu-aarch64-static);
# - under qemu-user, record --help works and record fails with one line and
#   leaves nothing (qemu-user passes no perf_event_open through: record
#   itself cannot be tested there);
# - the arm64 BPF objects, built with -D__TARGET_ARCH_arm64 against this
#   host's vmlinux.h, hold the same instructions, BTF and CO-RE relocations
#   as the x86 ones (only the DWARF's build path differs): what
#   docs/install.md says the arm64 binary loads.
# The static binaries are not sanitized (ASan cannot link statically), so
# what this checks does not depend on the build under test:
# suite: once
. "$(dirname "$0")/lib.sh"
# the static builds live in the non-sanitized build directory
SBUILD=$BUILD
[ -x "$TOP/$SBUILD/scxprof-static" ] || SBUILD=build
STATIC="$TOP/$SBUILD/scxprof-static"
ARM64="$TOP/build/scxprof-static-arm64"
SWORK="$TOP/$SBUILD/workloads-static/scxprof-workload"
# root_can_install: make test's check-deps, run as root where apt-get is,
# installs what the static builds need: their absence is then a failure
root_can_install() { [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; }
if [ ! -x "$STATIC" ] || [ ! -x "$SWORK" ]; then
	if root_can_install; then
		fail "static binary" "no $SBUILD/scxprof-static or static workload, though make test's check-deps ran as root (it installs Zydis's Debian source): the build left it out"
	else
		skip "static binary" "no $SBUILD/scxprof-static or static workload: make deps (Zydis's Debian source, as root) then make test"
	fi
	exit 0
fi
DYN="$TOP/build/scxprof"
[ -x "$DYN" ] || DYN=$SCXPROF

# ---- 1. the file itself
ldd_out=$(ldd "$STATIC" 2>&1)
if grep -q "not a dynamic executable" <<<"$ldd_out"; then
	pass "ldd scxprof-static: not a dynamic executable"
else
	fail "ldd scxprof-static: not a dynamic executable" "$ldd_out"
fi
if readelf -lW "$STATIC" | grep -q INTERP || readelf -dW "$STATIC" | grep -q NEEDED; then
	fail "scxprof-static has no interpreter and no NEEDED library" "$(readelf -lW "$STATIC" | grep -A1 INTERP)"
else
	pass "scxprof-static has no interpreter and no NEEDED library"
fi
"$STATIC" --version >"$WORK/v.static" 2>&1
"$DYN" --version >"$WORK/v.dyn" 2>&1
check "--version: first line as the dynamic build's" cmp <(head -n 1 "$WORK/v.static") <(head -n 1 "$WORK/v.dyn")
check "--version says static, the arch and the commit" grep -qE '^build: static \(x86_64\), commit [0-9a-f]{12}' "$WORK/v.static"
check "--version of the dynamic build says dynamic" grep -qE '^build: dynamic \(x86_64\), commit [0-9a-f]{12}' "$WORK/v.dyn"
check "--version says how the BPF programs were built" grep -qE '^bpf: clang .* -D__TARGET_ARCH_x86, vmlinux.h from .*, objects sha256 [0-9a-f]{12}$' "$WORK/v.static"

# ---- 2. byte-identical outputs on the fixtures
# outputs TAG BIN...: in a scratch directory (relative paths, so outputs
# naming their inputs name the same ones), run process and extract on the
# fixtures; write "sha256  case/file" for every output to $WORK/h.TAG and
# each command's exit status to $WORK/rc.TAG (hashed too)
outputs() {
	local d f p tag=$1
	shift
	d=$(mktemp -d "$WORK/out.XXXXXX")
	(
		cd "$d" || exit 1
		cp -r "$TOP/tests/fixtures/profile_basic" "$TOP/tests/fixtures/profile_unordered" .
		cp -r "$TOP/tests/fixtures/extract" extract
		for f in spe_ctx_pa spe_switch_nopa spe_lost; do
			mkdir "$f" && cp "$TOP/tests/fixtures/spe/$f.data" "$f/perf.data"
		done
		for p in profile_basic profile_unordered spe_ctx_pa spe_switch_nopa spe_lost; do
			"$@" process -v -j 2 -f "$p" -o "$p.out" --no-filter >"$p.process.stdout" 2>"$p.process.stderr"
			echo "$? process $p" >>rcs
			"$@" extract -v -f "$p.out/perf.jsonl" >"$p.extract.stdout" 2>"$p.extract.stderr"
			echo "$? extract $p.out/perf.jsonl" >>rcs
		done
		"$@" extract -v -j 1 -f profile_basic >basic.onepass.stdout 2>basic.onepass.stderr
		echo "$? extract profile_basic (one pass)" >>rcs
		"$@" report -f profile_basic.out -o basic.html >/dev/null 2>&1
		echo "$? report profile_basic.out" >>rcs
		for f in groups hints; do
			"$@" extract -v -f "extract/$f.jsonl" >"x.$f.stdout" 2>"x.$f.stderr"
			echo "$? extract $f.jsonl" >>rcs
		done
		"$@" extract -v -f extract/sched-demand/perf.jsonl >x.sched.stdout 2>x.sched.stderr
		echo "$? extract sched-demand" >>rcs
		rm -rf extract profile_basic profile_unordered spe_*/perf.data
		cp rcs "$WORK/rc.$tag"
		find . -type f | LC_ALL=C sort | xargs sha256sum >"$WORK/h.$tag"
	)
	rm -rf "$d"
}
outputs dyn "$DYN"
outputs static "$STATIC"
n=$(wc -l <"$WORK/h.dyn")
if [ "$n" -lt 40 ]; then
	fail "fixtures: outputs hashed" "only $n outputs"
elif cmp -s "$WORK/h.dyn" "$WORK/h.static"; then
	pass "fixtures: static and dynamic x86-64 builds write the same $n outputs byte for byte"
else
	fail "fixtures: static = dynamic" "$(diff "$WORK/h.dyn" "$WORK/h.static" | head -n 4 | tr '\n' ' ')"
fi
check "fixtures: each of the $(wc -l <"$WORK/rc.dyn") commands exited 0" test -z "$(grep -v '^0 ' "$WORK/rc.dyn")"

# ---- 3. the bare root
if ! perf record -q -e page-faults -c 1 -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip "bare root: record" "perf_event_open of software events is refused here"
elif ! cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts) || [ -z "$cg2" ] || [ ! -w "$cg2" ]; then
	skip "bare root: record" "no writable cgroup2 hierarchy"
else
	R="$WORK/root"
	A="workload.slice/workload-tw-static-$$.allotment.slice"
	mkdir -p "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$WORK/roottmp" "$cg2/$A"
	cp "$STATIC" "$R/scxprof"
	cp "$SWORK" "$R/workload"
	# the mounts belong to the namespace: they go when its last process ends,
	# whatever the test did; the cgroup is removed at exit
	trap 'cgroup_remove "$cg2/$A"; rm -rf "$WORK"' EXIT
	ls -A "$R" >"$WORK/root.ls"
	findmnt -rn -o TARGET,FSTYPE -R /sys | sort >"$WORK/mounts.host"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private -- bash -c '
		R=$1 T=$2 A=$3 L=$4 RE=$5
		mount --rbind /proc "$R/proc" && mount --rbind /sys "$R/sys" && mount --rbind /dev "$R/dev" &&
			mount --bind "$T" "$R/tmp" || { echo "mount failed" >"$L/mount.err"; exit 1; }
		# tracefs and debugfs where systemd mounts them on a host, if this one has not
		mountpoint -q "$R/sys/kernel/tracing" || mount -t tracefs tracefs "$R/sys/kernel/tracing"
		mountpoint -q "$R/sys/kernel/debug" || mount -t debugfs debugfs "$R/sys/kernel/debug"
		findmnt -rn -o TARGET,FSTYPE -R "$R/sys" | sed "s|^$R||" | sort >"$L/mounts.root"
		cd "$R" || exit 1
		chroot "$R" /scxprof record -t 3 -o /tmp/prof --backend page-fault -- \
			/workload -d 2 -p 64 -H 20 "alpha:2:A:$A" "beta:2:A:$A" "gamma:2:G" >"$L/record.out" 2>"$L/record.err"
		echo $? >"$L/record.rc"
		chroot "$R" /scxprof process -f /tmp/prof.tar.gz -o /tmp/out --no-perfetto >"$L/process.out" 2>"$L/process.err"
		echo $? >"$L/process.rc"
		chroot "$R" /scxprof extract -f /tmp/out/perf.jsonl \
			--workload-allotment-cgroup-regex "$RE" >"$L/config.json" 2>"$L/extract.err"
		echo $? >"$L/extract.rc"
		chroot "$R" /scxprof report -f /tmp/out -o /tmp/report.html >"$L/report.out" 2>"$L/report.err"
		echo $? >"$L/report.rc"
		chroot "$R" /scxprof record -t 1 -o /tmp/out >/dev/null 2>"$L/refuse.err"
		echo $? >"$L/refuse.rc"
		chroot "$R" /usr/bin/true 2>/dev/null; echo $? >"$L/usr.rc"
	' bare "$R" "$WORK/roottmp" "$A" "$WORK" "workload-tw-static-$$\.allotment\.slice" 2>"$WORK/unshare.err"
	cgroup_remove "$cg2/$A"
	check "bare root: holds scxprof and the workload only (no /usr, /lib, /etc)" \
		test "$(tr '\n' ' ' <"$WORK/root.ls")" = "dev proc scxprof sys tmp workload "
	check "bare root: /sys has the host's mounts ($(awk '{print $2}' "$WORK/mounts.host" | sort -u | tr '\n' ' '))" \
		test -z "$(comm -23 "$WORK/mounts.host" "$WORK/mounts.root")"
	check "bare root: tracefs and debugfs mounted" \
		bash -c "grep -qx '/sys/kernel/tracing tracefs' '$WORK/mounts.root' && grep -qx '/sys/kernel/debug debugfs' '$WORK/mounts.root'"
	check "bare root: no /usr/bin/true inside (exit 127)" test "$(cat "$WORK/usr.rc" 2>/dev/null)" = 127
	for s in record process extract report; do
		if [ "$(cat "$WORK/$s.rc" 2>/dev/null)" = 0 ]; then
			pass "bare root: $s exits 0"
		else
			fail "bare root: $s exits 0" "rc $(cat "$WORK/$s.rc" 2>/dev/null) $(tail -n 3 "$WORK/$s.err" 2>/dev/null) $(cat "$WORK/mount.err" "$WORK/unshare.err" 2>/dev/null)"
		fi
	done
	check "bare root: record's archive and report written under the root's /tmp" \
		test -s "$WORK/roottmp/prof.tar.gz" -a -s "$WORK/roottmp/report.html"
	check "bare root: record refuses an existing output directory, one line" \
		bash -c "[ \"\$(cat '$WORK/refuse.rc')\" != 0 ] && [ \$(wc -l <'$WORK/refuse.err') -eq 1 ]"
	check "bare root: planted groups found (alpha+beta share, gamma apart)" python3 - "$WORK/config.json" <<'PY'
import json, sys
cells = {c["name"]: [s["name"] for s in c.get("subcells", [])] for c in json.load(open(sys.argv[1]))}
assert "alpha-+beta-" in cells.get("allotment", []), cells
assert not any("gamma" in s and "alpha" in s for v in cells.values() for s in v), cells
PY
	"$DYN" extract -f "$WORK/roottmp/out/perf.jsonl" \
		--workload-allotment-cgroup-regex "workload-tw-static-$$\\.allotment\\.slice" >"$WORK/config.dyn.json" 2>/dev/null
	if [ -s "$WORK/config.json" ] && cmp -s "$WORK/config.json" "$WORK/config.dyn.json"; then
		pass "bare root: the config equals the dynamic build's extract of the same profile"
	else
		fail "bare root: config = dynamic build's" "$(diff "$WORK/config.dyn.json" "$WORK/config.json" | head -n 4 | tr '\n' ' ')"
	fi
	# outside the root, where neither finds /workload to symbolize it
	(cd "$WORK" && "$DYN" process -j 2 -f roottmp/prof.tar.gz -o dyn.out >/dev/null 2>&1 &&
		"$STATIC" process -j 2 -f roottmp/prof.tar.gz -o static.out >/dev/null 2>&1)
	check "the bare root's recording: process of the static and dynamic builds write the same files" \
		bash -c "ls '$WORK/dyn.out' | grep -q perf.jsonl && diff -r '$WORK/dyn.out' '$WORK/static.out'"
fi

# ---- 4. arm64, under qemu-user
if [ ! -x "$ARM64" ]; then
	if root_can_install && [ "$(uname -m)" = x86_64 ]; then
		fail "arm64 static binary" "no build/scxprof-static-arm64, though make test's check-deps ran as root (it installs the aarch64 cross toolchain): the build left it out"
	else
		skip "arm64 static binary" "no build/scxprof-static-arm64: make deps (aarch64 cross toolchain, as root) then make test"
	fi
	exit 0
fi
if ! command -v qemu-aarch64-static >/dev/null; then
	if root_can_install; then
		fail "arm64 under qemu" "no qemu-aarch64-static, though make test's check-deps ran as root (it installs qemu-user-static)"
	else
		skip "arm64 under qemu" "no qemu-aarch64-static (make deps, as root, installs qemu-user-static)"
	fi
	exit 0
fi
check "arm64: an aarch64 static executable" bash -c "file -b '$ARM64' | grep -q 'ARM aarch64.*statically linked'"
check "arm64: ldd says not a dynamic executable" bash -c "ldd '$ARM64' 2>&1 | grep -q 'not a dynamic executable'"
qemu-aarch64-static "$ARM64" --version >"$WORK/v.arm64" 2>&1
commit=$(sed -n 's/^build: static (x86_64), commit //p' "$WORK/v.static")
check "arm64: --version says static (aarch64), the same commit ($commit)" grep -qxF "build: static (aarch64), commit $commit" "$WORK/v.arm64"
check "arm64: --version says the BPF programs were built for arm64" grep -q -- '-D__TARGET_ARCH_arm64, ' "$WORK/v.arm64"
outputs arm64 qemu-aarch64-static "$ARM64"
if cmp -s "$WORK/h.dyn" "$WORK/h.arm64"; then
	pass "arm64 under qemu: the same $n outputs as x86-64, byte for byte (SPE fixtures included)"
else
	fail "arm64 under qemu = x86-64" "$(diff "$WORK/h.dyn" "$WORK/h.arm64" | head -n 4 | tr '\n' ' ')"
fi
check "arm64 under qemu: record --help exits 0 and shows the options" \
	bash -c "qemu-aarch64-static '$ARM64' record --help | grep -q -- '--backend NAME'"
(cd "$WORK" && qemu-aarch64-static "$ARM64" record -t 1 -o qrec >qrec.out 2>qrec.err)
rc=$?
if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$(wc -l <"$WORK/qrec.err")" -eq 1 ] && grep -q '^scxprof record: ' "$WORK/qrec.err" &&
	[ ! -e "$WORK/qrec" ] && [ ! -e "$WORK/qrec.tar.gz" ]; then
	pass "arm64 under qemu: record fails with one line ($(cat "$WORK/qrec.err")), no crash, nothing left"
else
	fail "arm64 under qemu: record fails with one line" "rc $rc: $(head -n 3 "$WORK/qrec.err" | tr '\n' ' ')"
fi
bpf_same=""
for o in sched hints; do
	for b in build build/arm64; do
		llvm-objcopy --strip-debug "$TOP/$b/bpf/$o.bpf.o" "$WORK/$o.$(basename "$b").o"
	done
	cmp -s "$WORK/$o.build.o" "$WORK/$o.arm64.o" && [ -s "$WORK/$o.build.o" ] && bpf_same="$bpf_same $o"
done
check "arm64: BPF objects hold the x86 build's instructions, BTF and CO-RE relocations (sched, hints)" \
	test "$bpf_same" = " sched hints"

# ---- 5. make dist: both binaries, the man page, the schemas, SHA256SUMS; the
# same bytes twice (the binaries are up to date: make builds nothing again)
# (not in this run's BUILD nor with its make variables, SAN=1 under make asan:
# make dist builds build/ and build/arm64/)
if ! env -u BUILD -u SAN -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" dist >"$WORK/dist1.out" 2>"$WORK/dist1.err"; then
	fail "make dist" "$(tail -n 3 "$WORK/dist1.err")"
	exit 0
fi
tarball=$(ls "$TOP"/build/dist/scxprof-*.tar.gz)
cp "$tarball" "$WORK/dist1.tar.gz"
env -u BUILD -u SAN -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$TOP" dist >"$WORK/dist2.out" 2>&1
check "make dist: two runs write the same tarball, byte for byte ($(cut -c1-16 "$WORK/dist1.out"))" \
	cmp "$WORK/dist1.tar.gz" "$tarball"
check "make dist: the printed sum is the tarball's" bash -c "cd '$TOP/build/dist' && sha256sum -c --quiet '$(basename "$tarball").sha256'"
mkdir "$WORK/x" && tar -C "$WORK/x" -xzf "$tarball"
d=$(ls "$WORK/x")
check "make dist: SHA256SUMS verifies" bash -c "cd '$WORK/x/$d' && sha256sum -c --quiet SHA256SUMS"
check "make dist: both binaries, the man page and every schema" bash -c "
	cd '$WORK/x/$d' && cmp scxprof-x86_64 '$STATIC' && cmp scxprof-aarch64 '$ARM64' && cmp scxprof.1 '$TOP/docs/scxprof.1' &&
	[ \"\$(ls schemas)\" = \"\$(ls '$TOP/schemas')\" ] && [ \$(wc -l <SHA256SUMS) -eq \$((3 + \$(ls schemas | wc -l))) ]"
T=$(git -C "$TOP" log -1 --format=%ct)
check "make dist: entries sorted, owner 0/0, every mtime the commit's ($T), fixed modes" python3 - "$tarball" "$T" <<'PY'
import sys, tarfile
t = tarfile.open(sys.argv[1])
m = t.getmembers()
names = [x.name for x in m]
assert names == sorted(names), names
for x in m:
    assert (x.uid, x.gid, x.uname or "", x.gname or "") in ((0, 0, "", ""), (0, 0, "root", "root")), (x.name, x.uid, x.uname)
    assert x.mtime == int(sys.argv[2]), (x.name, x.mtime)
    want = 0o755 if x.isdir() or x.name.split("/")[-1].startswith("scxprof-") else 0o644
    assert x.mode == want, (x.name, oct(x.mode))
PY
check "make dist: gzip header holds no name and no time" python3 -c "
import sys; h = open(sys.argv[1], 'rb').read(10)
assert h[:2] == b'\x1f\x8b' and h[3] & 8 == 0 and h[4:8] == b'\0\0\0\0', h" "$tarball"
