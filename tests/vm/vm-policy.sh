#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: guest-policy.sh in the VM.
exec /bin/sh "$(dirname "$0")/vm-check.sh" guest-policy.sh
