#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: the harness itself (null_blk exercises --modules and the coldplug trigger).
exec /bin/sh "$(dirname "$0")/vm-check.sh" guest-selftest.sh --modules null_blk
