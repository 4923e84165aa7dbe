# shellcheck shell=sh
# For tests/vm/vm-*.sh, on the host: the tree's paths, the tools a VM test needs, and a scratch
# directory in the build tree, which the guest sees at the same path wherever the tree is (the
# guest's /tmp is its own tmpfs, with only the trees shown again).

# vm_host_init NAME: exports top_srcdir and top_builddir, sets clone (clone-pvs.py, which makes
# PV images natively: python under TCG is slow) and dir (a scratch directory NAME.XXXXXX,
# removed on exit); skips (77) without python3, tar or QEMU.
vm_host_init() {
	_here=$(cd "$(dirname "$0")" && pwd)
	: "${top_srcdir:=$(cd "$_here/../.." && pwd)}"
	: "${top_builddir:=$top_srcdir}"
	export top_srcdir top_builddir
	for _c in python3 tar qemu-system-x86_64; do
		command -v "$_c" >/dev/null 2>&1 || { echo "SKIP: $1: $_c not installed"; exit 77; }
	done
	mkdir -p "$top_builddir/tests/vm"
	dir=$(mktemp -d "$top_builddir/tests/vm/$1.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	trap 'exit 130' INT TERM
	clone="$top_srcdir/tests/bench/clone-pvs.py"
}
