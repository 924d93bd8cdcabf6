"""A warm server's heap moves onto huge pages: only anonymous writable memory, nothing lost."""

from __future__ import annotations

import os

from graders.sandbox import hugepages
from graders.sandbox.hugepages import HUGE

MAPS = """\
55d0c0000000-55d0c0a00000 rw-p 00000000 00:00 0                          [heap]
7f0000100000-7f0000700000 rw-p 00000000 00:00 0
7f0000800000-7f0000900000 rw-p 00000000 00:00 0
7f1000000000-7f1000400000 r--p 00000000 08:01 42                         /usr/lib/libc.so.6
7f2000000000-7f2000400000 rw-p 00000000 08:01 43                         /usr/lib/libtorch_cpu.so
7f3000000000-7f3000400000 rw-s 00000000 00:05 44                         /dev/shm/x
7f4000000000-7f4000400000 ---p 00000000 00:00 0
7ffd00000000-7ffd00400000 rw-p 00000000 00:00 0                          [stack]
"""


def test_only_private_anonymous_writable_memory_is_moved_in_whole_huge_pages() -> None:
    ranges = hugepages._anonymous_ranges(MAPS)

    assert ranges == [
        (0x55D0C0000000, 0x55D0C0A00000),  # the heap, already aligned
        (0x7F0000200000, 0x7F0000600000),  # an anonymous mapping, trimmed to 2 MiB bounds
    ]  # a mapping smaller than one huge page, files, shared memory, guards, the stack: never
    assert all(start % HUGE == 0 and end % HUGE == 0 for start, end in ranges)


def test_collapsing_keeps_every_byte_of_the_process() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # in a child: the test process's own memory is left as it is
        os.close(read)
        pattern = bytes(range(256)) * (32 << 12)  # 32 MiB on the heap
        held = bytearray(pattern)
        moved = hugepages.collapse()
        ok = held == pattern and moved >= 0
        os.write(write, b"ok" if ok else b"changed")
        os._exit(0)
    os.close(write)
    got = os.read(read, 16)
    os.close(read)
    os.waitpid(pid, 0)
    assert got == b"ok"
