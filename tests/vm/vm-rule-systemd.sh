#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: pvscan-fast's rule with systemd as init: the leader runs as a transient service.
exec /bin/sh "$(dirname "$0")/vm-check.sh" guest-rule-systemd.sh --systemd --udev-children-max 8
