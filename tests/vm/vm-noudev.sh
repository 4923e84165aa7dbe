#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: guest-noudev.sh in the VM, with no udev.
exec /bin/sh "$(dirname "$0")/vm-check.sh" guest-noudev.sh --no-udev
