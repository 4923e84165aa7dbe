#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: degraded activation after a deadline, its timer under systemd as init.
exec /bin/sh "$(dirname "$0")/vm-check.sh" guest-degraded.sh --systemd
