"""Every system call of this architecture has its place in the learner thread's filter:
written into the channel (evidence), another use of it (refused), refused outright, denied
to the whole process or carrying the filter along, harmless on it, or naming no descriptor. A call the kernel
(and libseccomp) adds later fails here until someone decides where it goes."""

from __future__ import annotations

import pytest

from graders.sandbox import syscalls

pyseccomp = pytest.importorskip("pyseccomp")

# Calls that take no descriptor, by argument or in memory (paths, pids, memory, ids, time).
NO_DESCRIPTOR = frozenset(
    """
    _sysctl access adjtimex afs_syscall alarm arch_prctl brk capget capset chdir chmod chown
    clock_adjtime clock_getres clock_gettime clock_nanosleep clock_settime creat create_module
    epoll_create epoll_create1 eventfd eventfd2 exit exit_group fanotify_init futex
    futex_requeue futex_wait futex_waitv futex_wake get_kernel_syms get_mempolicy
    get_robust_list get_thread_area getcpu getcwd getegid geteuid getgid getgroups getitimer
    getpgid getpgrp getpid getppid getpriority getrandom getresgid getresuid getrlimit
    getrusage getsid gettid gettimeofday getuid getxattr inotify_init inotify_init1 ioprio_get
    ioprio_set kill landlock_create_ruleset lchown lgetxattr link listxattr llistxattr
    lookup_dcookie lremovexattr lsetxattr lstat madvise map_shadow_stack mbind membarrier
    migrate_pages mincore mkdir mknod mlock mlock2 mlockall modify_ldt move_pages mprotect
    mq_open mq_unlink mremap msgctl msgrcv msgsnd msync munlock munlockall munmap nanosleep
    nfsservctl open pause personality pidfd_open pipe pipe2 pkey_alloc pkey_free pkey_mprotect
    prlimit64 query_module readlink remap_file_pages removexattr rename
    restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo
    rt_sigreturn rt_sigsuspend rt_sigtimedwait rt_tgsigqueueinfo sched_get_priority_max
    sched_get_priority_min sched_getaffinity sched_getattr sched_getparam sched_getscheduler
    sched_rr_get_interval sched_setaffinity sched_setattr sched_setparam sched_setscheduler
    sched_yield seccomp security semctl semop semtimedop set_mempolicy set_mempolicy_home_node
    set_robust_list set_thread_area set_tid_address setdomainname setfsgid setfsuid setgid
    setgroups sethostname setitimer setpgid setpriority setregid setresgid setresuid setreuid
    setrlimit setsid settimeofday setuid setxattr shmctl shmdt sigaltstack socketpair stat
    statfs symlink sync sysfs sysinfo tgkill time timer_create timer_delete timer_getoverrun
    timer_gettime timer_settime timerfd_create times tkill truncate tuxcall umask uname unlink
    uselib ustat utime utimes vhangup vserver wait4
    """.split()
)


def architecture_calls() -> set[str]:
    """Every system call name libseccomp knows for this machine's architecture."""
    found = set()
    for number in range(1024):
        try:
            name = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, number)
        except (ValueError, OSError):
            continue
        if name:
            found.add(name.decode() if isinstance(name, bytes) else name)
    return found


def places() -> dict[str, set[str]]:
    return {
        "written": {name for name, _arg in syscalls._WRITES},
        "other use": {name for name, _arg in syscalls._OTHER_USES} | {"close_range"},
        "refused outright": set(syscalls._REFUSED_OUTRIGHT),
        # Denied to the whole process; or a new thread or process, which carries the filter
        # (seccomp filters are inherited by clone and fork and kept across exec).
        "denied or inherited": {*syscalls.DENIED, *syscalls.PROCESSES, "clone", "clone3"},
        "harmless on the channel": set(syscalls.HARMLESS_ON_THE_CHANNEL),
        "no descriptor": set(NO_DESCRIPTOR),
    }


def test_every_call_of_the_architecture_has_one_place() -> None:
    calls = architecture_calls()
    assert len(calls) > 300  # libseccomp answered: the check below is not empty
    where = places()
    unplaced = sorted(c for c in calls if not any(c in names for names in where.values()))
    assert unplaced == [], f"system calls the learner thread's filter does not place: {unplaced}"
    # A call both left alone and filtered would be a list that lies about it.
    left_alone = where["harmless on the channel"] | where["no descriptor"]
    filtered = set().union(
        *(v for k, v in where.items() if k not in ("harmless on the channel", "no descriptor"))
    )
    assert sorted(left_alone & filtered) == []
    assert sorted(where["harmless on the channel"] & where["no descriptor"]) == []
