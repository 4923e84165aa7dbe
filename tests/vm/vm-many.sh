#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: 100 VGs brought up at coldplug by pvscan-fast's udev rule, then hotplug and both
# rules at once (guest-many.sh).
#
# The PV images are cloned here, natively, and handed to the guest as sparse tars in the build
# tree: cloning 100 images with python under TCG costs about a minute.
set -eu

. "$(dirname "$0")/../lib/vm-host.sh"
vm_host_init many-vgs
python3 "$clone" "$top_srcdir/tests/fixtures/single" "${MANY_VGS_N:-100}" "$dir/img" mv >/dev/null
(cd "$dir/img" && tar -cSf "$dir/images.tar" -- *.img)
# for hotplug: one more single-PV VG and a two-PV VG
python3 "$clone" "$top_srcdir/tests/fixtures/single" 1 "$dir/more" hp >/dev/null
python3 "$clone" "$top_srcdir/tests/fixtures/two-pv" 1 "$dir/more" tp >/dev/null
(cd "$dir/more" && tar -cSf "$dir/more.tar" -- *.img)
rm -rf "$dir/img" "$dir/more"

# children_max well below the number of VGs: udev's workers are scarce, as in the issue.
rc=0
/bin/sh "$top_srcdir/tests/vm/vm-run.sh" --udev-children-max 8 \
	"$top_srcdir/tests/vm/guest-many.sh" "$dir/images.tar" "$dir/more.tar" || rc=$?
exit "$rc"
