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

Learner code runs in a thread of its own (``child.py``), under one more filter that only
that thread (and any thread it starts) carries: ``channel_filter``. The step socket, the one
descriptor through which a child reports to the keeper, sits at ``CHANNEL_FD`` in every
child, and this filter keeps that thread off it whatever the code names: a write or send on
it kills the process (``SIGSYS``, which the keeper reads as evidence: no program writes to
a descriptor it never opened), and every other way to reach it (read it, duplicate it,
replace it, close it, shut it down, change its options, pass it to another socket in a
message or an AIO request, copy it out of the process with ``pidfd_getfd``) is refused
with ``EBADF`` or ``EPERM``, quietly: refusing is not accusing. The child's own line is
written by the main thread, which runs no learner code.

Every system call of the architecture has its place (``HARMLESS_ON_THE_CHANNEL`` says
which calls name a descriptor and are left alone on it, and why): a test fails on a call
that has none, so a new call is a decision, not a door.

Building a filter takes milliseconds, so the fork server builds them once; loading one in
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
CHANNEL_FD = 3  # the step socket's number in every child (``child._arrange_fds``)
# Calls that put bytes on a descriptor, by the argument that names it: on the channel,
# evidence (the process is killed with SIGSYS).
_WRITES = (
    ("write", 0),
    ("writev", 0),
    ("pwrite64", 0),
    ("pwritev", 0),
    ("pwritev2", 0),
    ("sendto", 0),
    ("sendfile", 0),
    ("splice", 2),
    ("tee", 1),
    ("vmsplice", 0),
    ("copy_file_range", 2),
)
# Every other call that names a descriptor and could read, copy, replace, close or change
# the channel: refused on the channel as if it were not open.
_OTHER_USES = (
    ("read", 0),
    ("readv", 0),
    ("pread64", 0),
    ("preadv", 0),
    ("preadv2", 0),
    ("recvfrom", 0),
    ("recvmsg", 0),
    ("recvmmsg", 0),
    ("sendfile", 1),
    ("splice", 0),
    ("tee", 0),
    ("copy_file_range", 0),
    ("close", 0),
    ("dup", 0),
    ("dup2", 0),
    ("dup2", 1),
    ("dup3", 0),
    ("dup3", 1),
    ("fcntl", 0),
    ("ioctl", 0),
    ("shutdown", 0),
    ("setsockopt", 0),
    ("getsockopt", 0),
    ("connect", 0),
    ("bind", 0),
    ("listen", 0),
    ("accept", 0),
    ("accept4", 0),
    ("ftruncate", 0),
    ("fsync", 0),
    ("fdatasync", 0),
)
# Refused outright in learner threads: a message can carry any descriptor (SCM_RIGHTS), and
# Linux AIO names its descriptors, where the filter cannot read them; pidfd_getfd copies a
# descriptor out of a process, this one included.
_REFUSED_OUTRIGHT = ("sendmsg", "sendmmsg", "pidfd_getfd", "io_setup", "io_submit")
PROCESSES = ("fork", "vfork", "execve", "execveat")
# Calls that name a descriptor (by an argument, or in memory) but cannot put bytes on, take
# bytes off, copy, replace or close it: left alone on the channel. A test holds every call
# this architecture has to exactly one place (these, the lists above, ``DENIED``, or the
# calls that name no descriptor), so a call the kernel adds later fails it until placed.
HARMLESS_ON_THE_CHANNEL = frozenset(
    # Wait for or watch readiness, never read: the data stays in the socket.
    "epoll_ctl epoll_ctl_old epoll_wait epoll_wait_old epoll_pwait epoll_pwait2 poll ppoll "
    "select pselect6 "
    # Metadata and position of the descriptor's file, or hints about it: on a socket they
    # read an inode's attributes or fail (ESPIPE, ENODEV, EINVAL, ENOTDIR).
    "fadvise64 fallocate fchdir fchmod fchown fgetxattr flistxattr fremovexattr fsetxattr "
    "flock fstat fstatfs getdents getdents64 getpeername getsockname lseek readahead "
    "sync_file_range syncfs cachestat mmap "
    # A directory descriptor for a path: a socket is no directory (ENOTDIR), and an empty
    # path reaches only the socket's inode, never its data.
    "fanotify_mark newfstatat statx faccessat faccessat2 fchmodat fchmodat2 fchownat "
    "futimesat linkat mkdirat mknodat openat openat2 readlinkat renameat renameat2 "
    "symlinkat unlinkat utimensat quotactl_fd "
    # A descriptor of another kind (inotify, signalfd, timerfd, pidfd, message queue,
    # Landlock ruleset, AIO context): on a socket they fail with EINVAL or EBADF.
    "inotify_add_watch inotify_rm_watch signalfd signalfd4 timerfd_settime timerfd_gettime "
    "pidfd_send_signal process_madvise process_mrelease waitid mq_timedsend mq_timedreceive "
    "mq_notify mq_getsetattr landlock_add_rule landlock_restrict_self io_cancel io_destroy "
    "io_getevents io_pgetevents "
    # Not implemented by Linux (ENOSYS), or privileged and about the process, not the file:
    # prctl(PR_SET_MM, PR_SET_MM_EXE_FILE, fd) needs CAP_SYS_RESOURCE.
    "putpmsg getpmsg prctl".split()
)


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


def channel_filter(channel: int = CHANNEL_FD) -> Any:
    """A ready-to-load filter for the learner thread: it keeps off the descriptor
    ``channel`` (see the module's docstring). Loaded in that thread only, on top of the
    process's own filter."""
    import pyseccomp as sc

    filt = sc.SyscallFilter(defaction=sc.ALLOW)
    for name, arg in _WRITES:
        _add(filt, sc.KILL_PROCESS, name, sc.Arg(arg, sc.EQ, channel))
    for name, arg in _OTHER_USES:
        _add(filt, sc.ERRNO(errno.EBADF), name, sc.Arg(arg, sc.EQ, channel))
    # close_range(first, last) closes the channel when first <= channel <= last.
    _add(
        filt,
        sc.ERRNO(errno.EBADF),
        "close_range",
        sc.Arg(0, sc.LE, channel),
        sc.Arg(1, sc.GE, channel),
    )
    for name in _REFUSED_OUTRIGHT:
        _add(filt, sc.ERRNO(errno.EPERM), name)
    return filt


def _add(filt: Any, action: int, name: str, *args: Any) -> None:
    try:
        filt.add_rule(action, name, *args)
    except OSError as exc:
        # A syscall this architecture or libseccomp does not know cannot be called either.
        if exc.errno not in (errno.EINVAL, errno.EFAULT, errno.EDOM):
            raise
