#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: guest-announced.sh in the VM.
exec /bin/sh "$(dirname "$0")/vm-check.sh" guest-announced.sh
