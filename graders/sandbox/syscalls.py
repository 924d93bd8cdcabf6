"""A seccomp filter for children: everything is allowed except what a grading job never needs.

Denied with ``EPERM``: creating sockets (no network, no talking to host daemons; socket
pairs still work), tracing or reading other processes, new namespaces, mounts, kernel
keyrings, BPF, perf, userfaultfd, io_uring (which could issue socket operations behind
the filter's back), module or kexec loading, and memory that outlives the process's
own mappings and its address-space limit (SysV shared memory, message queues and
semaphores, memfd). ``clone3`` answers ``ENOSYS`` because its
flags sit in memory the filter cannot read; libc then falls back to ``clone``, whose
namespace flags are checked.

A job of one process (``Limits.may_fork`` false: every job that runs a learner's code) gets
a stricter filter: no new process at all (``fork``, ``vfork``, a ``clone`` without
``CLONE_THREAD``) and no ``execve``: what would run beside or instead of the task is
refused by the kernel, whichever code asks, so CPU time, memory and the channel stay the
one process's. Threads are allowed.

Building a filter takes milliseconds, so the fork server builds it once; loading it in
a child is a single syscall.
"""

from __future__ import annotations

import errno
from typing import Any

DENIED = (
    "socket",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "open_tree",
    "move_mount",
    "mount_setattr",
    "open_by_handle_at",
    "name_to_handle_at",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "iopl",
    "ioperm",
    "shmget",
    "shmat",
    "msgget",
    "semget",
    "memfd_create",
    "memfd_secret",
)
NAMESPACE_FLAGS = (
    0x00000080,
    0x00020000,
    0x02000000,
    0x04000000,
    0x08000000,
    0x10000000,
    0x20000000,
    0x40000000,
)


def available() -> bool:
    """Whether pyseccomp and libseccomp can be loaded here."""
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, RuntimeError, OSError):  # RuntimeError: libseccomp not found
        return False
    return True


CLONE_THREAD = 0x00010000
PROCESSES = ("fork", "vfork", "execve", "execveat")


def build_filter(processes: bool = True) -> Any:
    """A ready-to-load ``pyseccomp.SyscallFilter`` (call ``.load()`` in the child);
    ``processes=False``: one that also refuses new processes and ``exec``."""
    import pyseccomp as sc

    denied = sc.ERRNO(errno.EPERM)
    filt = sc.SyscallFilter(defaction=sc.ALLOW)
    for name in DENIED:
        _add(filt, denied, name)
    for flag in NAMESPACE_FLAGS:
        _add(filt, denied, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    _add(filt, sc.ERRNO(errno.ENOSYS), "clone3")
    if not processes:
        for name in PROCESSES:
            _add(filt, denied, name)
        _add(filt, denied, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    return filt


def _add(filt: Any, action: int, name: str, *args: Any) -> None:
    try:
        filt.add_rule(action, name, *args)
    except OSError as exc:
        # A syscall this architecture or libseccomp does not know cannot be called either.
        if exc.errno not in (errno.EINVAL, errno.EFAULT, errno.EDOM):
            raise
