# SPDX-License-Identifier: GPL-2.0
# cpu-bound.py - a CPU-bound Python script for Debian's /usr/bin/python3:
# recursion, string building, dictionaries and sorting, for SECONDS.
#
#   /usr/bin/python3 cpu-bound.py SECONDS
import sys
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def words(n):
    d = {}
    for i in range(n):
        w = "w%d" % (i * 7919 % 1000)
        d[w] = d.get(w, 0) + len(w)
    return sorted(d.items(), key=lambda kv: (kv[1], kv[0]))


def main(seconds):
    t0 = time.monotonic()
    rounds = 0
    while time.monotonic() - t0 < seconds:
        fib(18)
        words(2000)
        rounds += 1
    print("%d rounds" % rounds)


main(float(sys.argv[1]) if len(sys.argv) > 1 else 5)
