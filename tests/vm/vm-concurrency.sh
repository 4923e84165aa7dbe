#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: lvm2 commands racing pvscan-fast's activation on a real kernel (guest-concurrency.sh).
exec /bin/sh "$(dirname "$0")/vm-check.sh" guest-concurrency.sh
