"""Landlock through raw syscalls: a child may write only to its scratch directory.

The fork server builds one ruleset per job (reads beneath the interpreter and system
directories, writes beneath the job's scratch directory) and the child enforces it with
``restrict_self`` just before the task runs. Newer ABIs add more: truncation and device
ioctls (ABI 3/5), no TCP bind/connect at all (ABI 4), and no signals or abstract unix
sockets outside the child's own domain (ABI 6), so a child cannot signal the fork server.
"""

from __future__ import annotations

import ctypes
import os
import platform
import stat
from collections.abc import Iterable

# Landlock's syscall numbers are the same on every architecture that has them.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_MAKE_AND_REMOVE = sum(1 << bit for bit in range(4, 13))  # remove dir/file, make char..sym
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
DEVICES = READ_FILE | READ_DIR | WRITE_FILE | IOCTL_DEV  # /dev/null and friends, no new nodes
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi_version() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    if platform.system() != "Linux":
        return 0
    version = _libc.syscall(
        _CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    return max(int(version), 0)


def handled_fs(abi: int) -> int:
    """Every filesystem right this ABI knows: the ones the ruleset takes away unless granted."""
    rights = READ | WRITE_FILE | _MAKE_AND_REMOVE
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def build_ruleset(abi: int, rules: Iterable[tuple[str, int]]) -> int:
    """A ruleset fd granting ``rights`` beneath each existing ``path``; all else is denied."""
    everything = handled_fs(abi)
    attr = _RulesetAttr(fs=everything)
    size = 8
    if abi >= 4:
        attr.net, size = _NET_BIND_TCP | _NET_CONNECT_TCP, 16
    if abi >= 6:
        attr.scoped, size = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL, 24
    fd = _check(
        _libc.syscall(
            _CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
        )
    )
    try:
        for path, rights in rules:
            _add_rule(fd, path, rights & everything)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _add_rule(ruleset_fd: int, path: str, rights: int) -> None:
    try:
        path_fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # a system directory this machine lacks (/lib32): nothing to grant
    try:
        if not stat.S_ISDIR(os.fstat(path_fd).st_mode):
            rights &= _FILE_RIGHTS  # a rule on a file may only carry file rights
        rule = _PathBeneath(allowed=rights, parent_fd=path_fd)
        _check(
            _libc.syscall(
                _ADD_RULE,
                ctypes.c_int(ruleset_fd),
                ctypes.c_int(_RULE_PATH_BENEATH),
                ctypes.byref(rule),
                ctypes.c_uint32(0),
            )
        )
    finally:
        os.close(path_fd)


def restrict_self(ruleset_fd: int) -> None:
    """Enforce the ruleset on the calling thread and its future children (needs no_new_privs)."""
    _check(_libc.syscall(_RESTRICT_SELF, ctypes.c_int(ruleset_fd), ctypes.c_uint32(0)))


def _check(result: int) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"landlock: {os.strerror(errno)}")
    return result
