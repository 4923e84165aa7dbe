#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: guest-status.sh in the VM (--status with device-mapper, a hung PV, a killed leader).
exec /bin/sh "$(dirname "$0")/vm-check.sh" guest-status.sh
