#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An extended regex matching exactly the loop device numbers on stdin, as digit ranges.

With one alternative per device, compiling an lvm.conf filter alone would cost lvm2 ~10 ms
per invocation at N=1000, which no real system pays. Prints e.g. "[3-9]|1[0-2]" for 3..12.
"""
import sys


def cls(a, b):
    return str(a) if a == b else "[%d-%d]" % (a, b)


def fixed(lo, hi):
    """Patterns for the digit strings lo..hi, all of the same width."""
    if lo == hi:
        return [lo]
    if len(lo) == 1:
        return [cls(int(lo), int(hi))]
    if lo[0] == hi[0]:
        return [lo[0] + p for p in fixed(lo[1:], hi[1:])]
    k = len(lo) - 1
    a, b = int(lo[0]), int(hi[0])
    head, tail = [], []
    if lo[1:] != "0" * k:
        head = [lo[0] + p for p in fixed(lo[1:], "9" * k)]
        a += 1
    if hi[1:] != "9" * k:
        tail = [hi[0] + p for p in fixed("0" * k, hi[1:])]
        b -= 1
    mid = [cls(a, b) + "[0-9]" * k] if a <= b else []
    return head + mid + tail


def main():
    nums = sorted(set(int(x) for x in sys.stdin.read().split()))
    pats, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        a, b = nums[i], nums[j]
        while a <= b:
            top = min(b, 10 ** len(str(a)) - 1)
            pats += fixed(str(a), str(top))
            a = top + 1
        i = j + 1
    print("|".join(pats))


if __name__ == "__main__":
    main()
