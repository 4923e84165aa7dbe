#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: activate-parity.sh in the VM.
exec /bin/sh "$(dirname "$0")/vm-check.sh" activate-parity.sh
