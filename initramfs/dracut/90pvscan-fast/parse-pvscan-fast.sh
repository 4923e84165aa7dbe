#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut cmdline hook: rd.lvm=0 (rd_NO_LVM) turns LVM2 activation off, pvscan-fast's included.

type getargbool >/dev/null 2>&1 || . /lib/dracut-lib.sh

if ! getargbool 1 rd.lvm -d -n rd_NO_LVM; then
    info "rd.lvm=0: removing pvscan-fast's LVM2 autoactivation"
    rm -f -- /etc/udev/rules.d/69-pvscan-fast.rules
fi
