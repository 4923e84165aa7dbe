#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: policy-parity.sh in the VM.
exec /bin/sh "$(dirname "$0")/vm-check.sh" policy-parity.sh
