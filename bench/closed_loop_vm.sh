#!/usr/bin/env bash
# closed_loop_vm.sh - bench/closed_loop.sh under the scx_mitosis model in a
# KVM guest with enough vCPUs (default 16) that a workload subcell's run of
# consecutive CPUs straddles two LLCs, which a 2-CPU host cannot give. The
# guest's LLCs are the topology file's: two LLCs interleaving the CPU
# numbers (even CPUs one, odd the other), whatever its real caches are.
# It downloads a Debian kernel and busybox-static (apt-get download) into a
# temporary directory, builds an initramfs that mounts this host's root
# read-only over 9p with a tmpfs overlay on it, runs
#   MODEL=mitosis TOPOLOGY=interleaved bench/closed_loop.sh -t SECS WORKLOAD...
# in the guest (default workloads: planted prodcons redis) and prints its
# table; DIR (-o, default a new /tmp/closed-loop-vm.XXXXXX) gets the guest's
# console log and the closed loop's directory (a writable 9p export).
# Requirements: a Debian host (apt-get, dpkg-deb), root, /dev/kvm with
# hardware virtualisation (not PVM: kvm_pvm runs only PVM guest kernels),
# qemu-system-x86_64, this tree built (make, plus build/workloads/llc-truth
# and build/workloads/scxprof-workload), redis-server for redis. Run by
# hand: not part of make test (minutes of guest time). Tried so far only on
# a host whose KVM is PVM, where the guest kernel does not boot: the guest
# side (the 9p root, the loop in the guest) has not run to its end yet.
# ACCEL=tcg emulates the vCPUs instead (qemu's multi-threaded TCG: slow,
# but it needs no KVM and boots a stock kernel where KVM is PVM; the
# guest's clock is real time, so a workload gets a fraction of its CPU).
# VM_CMD='COMMAND' runs that shell command in the guest (from this tree's
# top) instead of the closed loop and prints its output: e.g.
# VM_CMD='build/scxprof record -v -t 3 -o /tmp/r -- sleep 1' checks that
# the BPF programs load on the guest's kernel.
# usage: bench/closed_loop_vm.sh [-c VCPUS] [-m MEM] [-t SECS] [-o DIR] [WORKLOAD...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
vcpus=16 mem=4G secs=8 dir="" boot_timeout=${BOOT_TIMEOUT:-300}
die() { echo "closed_loop_vm.sh: $*" >&2; exit 1; }
while getopts "c:m:t:o:" o; do
	case $o in
	c) vcpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	t) secs=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- planted prodcons redis
accel=${ACCEL:-kvm}
command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
case $accel in
kvm)
	[ -c /dev/kvm ] || die "no /dev/kvm: this host cannot run a KVM guest (ACCEL=tcg emulates the CPUs instead)"
	[ -d /sys/module/kvm_pvm ] && [ -z "${FORCE_PVM:-}" ] &&
		die "/dev/kvm is PVM (kvm_pvm): a stock Debian kernel does not boot under it (ACCEL=tcg emulates the CPUs instead; FORCE_PVM=1 tries anyway)"
	qaccel="-accel kvm -cpu host" ;;
tcg) qaccel="-accel tcg,thread=multi -cpu max" ;;
*) die "ACCEL=$accel: kvm or tcg" ;;
esac
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || die "needs apt-get and dpkg-deb (a Debian host)"
[ -x "$top/build/scxprof" ] || die "no $top/build/scxprof: run make first"

[ -n "$dir" ] || dir=$(mktemp -d /tmp/closed-loop-vm.XXXXXX)
mkdir -p "$dir" || exit 1
work=$(mktemp -d /tmp/closed-loop-vm-build.XXXXXX) || exit 1
qpid=""
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# the newest linux-image-*-amd64-unsigned this host's apt knows, and busybox-static
kpkg=$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-amd64-unsigned$' | awk '{ print $1 }' | sort -V | tail -n 1)
[ -n "$kpkg" ] || die "apt knows no linux-image-*-amd64-unsigned package"
(cd "$work" && apt-get download "$kpkg" busybox-static >"$work/apt.log" 2>&1) || die "apt-get download $kpkg busybox-static failed: $(tail -n 1 "$work/apt.log")"
mkdir -p "$work/k" "$work/bb" "$work/ir"
dpkg-deb -x "$work"/linux-image-*.deb "$work/k" && dpkg-deb -x "$work"/busybox-static*.deb "$work/bb" || die "dpkg-deb -x failed"
kver=$(ls "$work/k/lib/modules")
kimg=$work/k/boot/vmlinuz-$kver
[ -f "$kimg" ] || die "$kpkg has no /boot/vmlinuz-$kver"

# the initramfs: busybox, the modules 9p and overlay need (in load order), /init
mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci 9pnet 9pnet_virtio netfs fscache 9p overlay"
mkdir -p "$work/ir/bin" "$work/ir/mod" "$work/ir/proc" "$work/ir/sys" "$work/ir/dev" "$work/ir/lower" "$work/ir/rw" "$work/ir/newroot"
cp "$work/bb/bin/busybox" "$work/ir/bin/" || die "busybox-static has no /bin/busybox"
for m in $mods; do
	f=$(find "$work/k/lib/modules/$kver" -name "$m.ko*" | head -n 1)
	[ -n "$f" ] || die "$kpkg has no module $m"
	case $f in
	*.xz) xz -dc "$f" >"$work/ir/mod/$m.ko" ;;
	*.zst) zstd -qdc "$f" >"$work/ir/mod/$m.ko" ;;
	*) cp "$f" "$work/ir/mod/$m.ko" ;;
	esac || die "cannot unpack $f"
done
cat >"$work/ir/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $mods; do insmod /mod/\$m.ko || echo "vm init: insmod \$m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /lower || echo "vm init: 9p root failed"
mount -t tmpfs -o size=2g rw /rw && mkdir -p /rw/u /rw/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/u,workdir=/rw/w /newroot || echo "vm init: overlay failed"
mkdir -p /newroot/vmout
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmout /newroot/vmout || echo "vm init: 9p vmout failed"
mount -t proc proc /newroot/proc; mount -t sysfs sys /newroot/sys; mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm; mount -t devpts devpts /newroot/dev/pts; mount -t tmpfs shm /newroot/dev/shm
mount -t tmpfs tmp /newroot/tmp; mount -t tmpfs run /newroot/run
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup; mount -t bpf bpf /newroot/sys/fs/bpf
mount -t tracefs tracefs /newroot/sys/kernel/tracing; mount -t debugfs debugfs /newroot/sys/kernel/debug
ip link set lo up
echo "vm init: up, running /vmout/run.sh"
chroot /newroot /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /bin/bash /vmout/run.sh
echo "vm init: run.sh exit \$?"
sync; poweroff -f
EOF
chmod +x "$work/ir/init"
(cd "$work/ir" && find . | "$work/bb/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1 >"$work/initrd.gz") || die "cannot build the initramfs"

# the guest's run: a topology of its CPUs with two interleaved LLCs, then the closed loop
cat >"$dir/run.sh" <<EOF
set -u
n=\$(nproc)
python3 - "\$n" >/vmout/topology.json <<'PY'
import json, sys
n = int(sys.argv[1])
llc = lambda l: ",".join(str(c) for c in range(n) if c % 2 == l)
print(json.dumps({"version": 1, "cpus": [{"cpu": c, "core": c, "package": 0, "llc": c % 2, "llc_level": 3,
    "llc_size": 16777216, "llc_cpus": llc(c % 2), "node": 0, "siblings": str(c)} for c in range(n)]}))
PY
echo "guest: \$(uname -r), \$n vCPUs"
"$top/build/scxprof" --version
if [ -f /vmout/cmd.sh ]; then
	cd "$top" && bash /vmout/cmd.sh >/vmout/cmd.log 2>&1
	echo "VM_CMD exit \$?"
	exit 0
fi
MODEL=mitosis TOPOLOGY=/vmout/topology.json "$top/bench/closed_loop.sh" -t $secs -o /vmout/loop $* >/vmout/table.md 2>/vmout/loop.err
echo "closed_loop.sh exit \$?"
EOF
rm -f "$dir/cmd.sh"
[ -z "${VM_CMD:-}" ] || printf '%s\n' "$VM_CMD" >"$dir/cmd.sh"

echo "closed_loop_vm.sh: $kpkg, $vcpus vCPUs, $mem, workloads $*; console in $dir/console.log" >&2
# shellcheck disable=SC2086 # qaccel is two options
qemu-system-x86_64 $qaccel -smp "$vcpus" -m "$mem" -display none -no-reboot \
	-serial "file:$dir/console.log" -nic none \
	-kernel "$kimg" -initrd "$work/initrd.gz" -append "console=ttyS0 panic=-1 rdinit=/init" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$dir,mount_tag=vmout,security_model=none,multidevs=remap" \
	>"$dir/qemu.log" 2>&1 &
qpid=$!
# the guest has BOOT_TIMEOUT seconds (default 300) to reach its init, then the loop its own time
for _ in $(seq "$boot_timeout"); do
	grep -qs 'vm init: up' "$dir/console.log" && break
	kill -0 "$qpid" 2>/dev/null || break
	sleep 1
done
if ! grep -qs 'vm init: up' "$dir/console.log"; then
	c=$(tail -c 200 "$dir/console.log" 2>/dev/null | tr -s '\r\n' '  ')
	die "the guest did not reach its init in $boot_timeout s (console: ${c:-empty})"
fi
wait "$qpid"
qpid=""
grep -s '^guest:\|^closed_loop.sh exit\|^VM_CMD exit\|^vm init: insmod\|failed$' "$dir/console.log" >&2
if [ -n "${VM_CMD:-}" ]; then
	cat "$dir/cmd.log"
	exit 0
fi
[ -s "$dir/table.md" ] || die "the guest wrote no table: $(tail -n 2 "$dir/loop.err" 2>/dev/null | tr '\n' ' ')"
cat "$dir/table.md"
