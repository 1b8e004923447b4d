#!/usr/bin/env bash
# deps.sh - check (and with "install", install) what scxprof needs to build
# and test: Debian -dev packages found with pkg-config, libpfm4 and Zydis (no .pc files),
# the BPF toolchain, perf (the test oracle), ajv (schema validator, npm),
# Dask distributed (optional: examples/dask_evidence.py's test SKIPs without it),
# Debian's chromium with playwright-core (npm) for the report's browser test,
# and the programs the sharing tests record (stress-ng, memcached, memcslap,
# redis-server, redis-benchmark, sqlite3).
# `make static` and `make static-arm64` (docs/install.md): Zydis's Debian
# source (Debian ships no libZydis.a; fetched with apt-get source into
# ZYDIS_SRC_DIR, after adding deb-src lines for Debian's own archive when
# there are none), and on x86-64 the aarch64 cross compiler, the arm64 -dev
# packages whose .a archives the static link takes (multiarch: dpkg
# --add-architecture arm64) and qemu-user-static (test_static.sh runs the
# arm64 binary with it). Those are installed without recommends: the fewest
# packages, for CI's cold run.
set -u
mode=${1:-check}
here=$(cd "$(dirname "$0")/.." && pwd)

# pkg-config name -> Debian package
declare -A pc_pkgs=(
	[libelf]=libelf-dev [libarchive]=libarchive-dev [libpcre2-8]=libpcre2-dev
	[json-c]=libjson-c-dev [libbpf]=libbpf-dev [criterion]=libcriterion-dev
	[zlib]=zlib1g-dev [libzstd]=libzstd-dev
)
missing=()
command -v pkg-config >/dev/null || missing+=(pkg-config)
for pc in "${!pc_pkgs[@]}"; do
	pkg-config --exists "$pc" 2>/dev/null || missing+=("${pc_pkgs[$pc]}")
done
[ -f /usr/include/perfmon/pfmlib_perf_event.h ] || missing+=(libpfm4-dev)
[ -f /usr/include/libiberty/demangle.h ] || missing+=(libiberty-dev)
# x86 instruction decoder of `record --backend decode` (no .pc file)
[ -f /usr/include/Zydis/Zydis.h ] || missing+=(libzydis-dev)
command -v clang >/dev/null || missing+=(clang)
command -v bpftool >/dev/null || missing+=(bpftool)
command -v perf >/dev/null || missing+=(linux-perf)
command -v node >/dev/null || missing+=(nodejs)
command -v python3 >/dev/null || missing+=(python3)
command -v protoc >/dev/null || missing+=(protobuf-compiler)
command -v tar >/dev/null || missing+=(tar)
command -v npm >/dev/null || missing+=(npm)
# real programs the sharing-evidence tests record (test_sharing_real.sh)
command -v stress-ng >/dev/null || missing+=(stress-ng)
command -v memcached >/dev/null || [ -x /usr/bin/memcached ] || missing+=(memcached)
command -v memcslap >/dev/null || missing+=(libmemcached-tools)
# test_sharing_redis.sh: a service whose sharing is one hot structure
command -v redis-server >/dev/null || missing+=(redis-server)
command -v redis-benchmark >/dev/null || missing+=(redis-tools)
# test_sharing_bench.sh: four sqlite3 readers on two databases (perf bench numa comes with linux-perf)
command -v sqlite3 >/dev/null || missing+=(sqlite3)
# optional: without it the report's browser test SKIPs (it says why)
optional=()
[ -x /usr/bin/chromium ] || optional+=(chromium)
# optional: the fleet example (examples/dask_evidence.py, test_evidence_dask.sh) runs on Dask
# (found, not imported: importing Dask takes seconds)
has_distributed='import importlib.util, sys; sys.exit(importlib.util.find_spec("distributed") is None)'
{ python3 -c "$has_distributed" || /usr/bin/python3 -c "$has_distributed"; } >/dev/null 2>&1 ||
	optional+=(python3-distributed)
# libFuzzer runtime for `make fuzz`
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-14-dev)

# ---- the static builds' extras (make static, make static-arm64)
ZYDIS_SRC_DIR=/usr/local/src/scxprof-deps
# zydis_src_dir: where the source of the installed libzydis-dev goes ("" when none is installed)
zydis_src_dir() {
	local v
	v=$(dpkg-query -W -f='${Version}' libzydis-dev 2>/dev/null)
	[ -n "$v" ] && echo "$ZYDIS_SRC_DIR/zydis-${v%-*}"
}
need_zydis_src=0
d=$(zydis_src_dir)
# no libzydis-dev yet: it is installed below, and its source fetched after it
if [ -z "$d" ] || [ ! -f "$d/CMakeLists.txt" ]; then
	need_zydis_src=1
	command -v dpkg-source >/dev/null || missing+=(dpkg-dev)
fi
cross=()
arm64_dev=()
if [ "$(uname -m)" = x86_64 ]; then
	command -v aarch64-linux-gnu-gcc >/dev/null || cross+=(gcc-aarch64-linux-gnu)
	[ -f /usr/aarch64-linux-gnu/lib/libc.a ] || cross+=(libc6-dev-arm64-cross)
	command -v qemu-aarch64-static >/dev/null || cross+=(qemu-user-static)
	# the .a of each library the static link names -> its arm64 -dev package
	declare -A arm64_libs=(
		[libbpf]=libbpf-dev [libelf]=libelf-dev [libarchive]=libarchive-dev [libpcre2-8]=libpcre2-dev
		[libjson-c]=libjson-c-dev [libz]=zlib1g-dev [libzstd]=libzstd-dev [libpfm]=libpfm4-dev
		[libiberty]=libiberty-dev
	)
	for a in "${!arm64_libs[@]}"; do
		[ -f "/usr/lib/aarch64-linux-gnu/$a.a" ] || arm64_dev+=("${arm64_libs[$a]}:arm64")
	done
fi

need_npm=0
[ -f "$here/tests/node_modules/ajv/package.json" ] || need_npm=1
[ -f "$here/tests/node_modules/playwright-core/package.json" ] || need_npm=1

# ---- install: one apt-get update for all of it (each takes tens of
# seconds on a cold machine), then the build's packages, the static builds'
# extras (without recommends: the fewest packages), the optional ones (their
# failure only makes a test SKIP) and last Zydis's source, whose version is
# the installed libzydis-dev's
static_extras=$((${#cross[@]} + ${#arm64_dev[@]} + need_zydis_src))
if [ $((${#missing[@]} + static_extras + ${#optional[@]})) -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		if [ ${#missing[@]} -gt 0 ]; then
			echo "scxprof: missing build dependencies; run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
			exit 1
		fi
		[ $need_zydis_src -eq 1 ] && cross+=("zydis's source")
		[ $static_extras -gt 0 ] && echo "scxprof: make static needs (run make deps as root): ${cross[*]} ${arm64_dev[*]}" >&2
	else
		export DEBIAN_FRONTEND=noninteractive
		if [ ${#arm64_dev[@]} -gt 0 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
			dpkg --add-architecture arm64
		fi
		if [ $need_zydis_src -eq 1 ] && ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
			# Debian's own archive, as the system's deb lines name it
			sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
				>/etc/apt/sources.list.d/scxprof-deb-src.sources 2>/dev/null ||
				sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >/etc/apt/sources.list.d/scxprof-deb-src.list
		fi
		apt-get update -qq >/dev/null || { echo "scxprof: failed: apt-get update" >&2; exit 1; }
		if [ ${#missing[@]} -gt 0 ]; then
			echo "scxprof: installing: ${missing[*]}" >&2
			apt-get install -y -qq "${missing[@]}" >/dev/null ||
				{ echo "scxprof: failed: apt-get install -y ${missing[*]}" >&2; exit 1; }
		fi
		if [ $((${#cross[@]} + ${#arm64_dev[@]})) -gt 0 ]; then
			echo "scxprof: installing for make static: ${cross[*]} ${arm64_dev[*]}" >&2
			apt-get install -y -qq --no-install-recommends "${cross[@]}" "${arm64_dev[@]}" >/dev/null ||
				{ echo "scxprof: failed: apt-get install --no-install-recommends ${cross[*]} ${arm64_dev[*]}" >&2; exit 1; }
		fi
		if [ ${#optional[@]} -gt 0 ]; then
			echo "scxprof: installing: ${optional[*]}" >&2
			apt-get install -y -qq "${optional[@]}" >/dev/null ||
				echo "scxprof: could not install ${optional[*]}: the report's browser test or the Dask example's test will SKIP" >&2
		fi
		d=$(zydis_src_dir)
		if [ $need_zydis_src -eq 1 ] && [ -n "$d" ] && [ ! -f "$d/CMakeLists.txt" ]; then
			echo "scxprof: fetching for make static: zydis's source" >&2
			v=$(dpkg-query -W -f='${Version}' libzydis-dev)
			mkdir -p "$ZYDIS_SRC_DIR"
			(cd "$ZYDIS_SRC_DIR" && apt-get source -qq "zydis=$v" >/dev/null 2>&1) ||
				{ echo "scxprof: failed: (cd $ZYDIS_SRC_DIR && apt-get source zydis=$v)" >&2; exit 1; }
		fi
	fi
fi

# optional: DuckDB's node client for test_zstd.sh's read_json check (without
# it that check SKIPs, saying why). --no-save: tests/package.json stays as
# is; run last, as an `npm install` of the others drops unsaved packages.
optional_duckdb() {
	[ -d "$here/tests/node_modules/@duckdb/node-api" ] && return 0
	command -v npm >/dev/null && [ "$(id -u)" -eq 0 ] || return 0
	(cd "$here/tests" && npm install --no-save --no-audit --no-fund --silent @duckdb/node-api >/dev/null 2>&1) ||
		echo "scxprof: could not install @duckdb/node-api: test_zstd's DuckDB check will SKIP" >&2
}
if [ $need_npm -eq 1 ]; then
	command -v npm >/dev/null || { echo "scxprof: npm missing (apt-get install -y npm)" >&2; exit 1; }
	# playwright-core drives Debian's /usr/bin/chromium; it downloads no browser of its own
	(cd "$here/tests" && npm install --no-audit --no-fund --silent ajv@8 ajv-formats@3 playwright-core@1 >/dev/null 2>&1) ||
		{ echo "scxprof: failed: (cd tests && npm install ajv@8 ajv-formats@3 playwright-core@1)" >&2; exit 1; }
fi
optional_duckdb
exit 0
