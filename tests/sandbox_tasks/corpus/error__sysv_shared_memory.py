# expect: PermissionError
# SysV shared memory outlives the process and its address-space limit: refused.
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
ident = libc.shmget(IPC_PRIVATE, ctypes.c_size_t(1 << 30), IPC_CREAT | 0o600)
if ident < 0:
    errno = ctypes.get_errno()
    raise PermissionError(errno, os.strerror(errno))
result = f"got segment {ident}"
