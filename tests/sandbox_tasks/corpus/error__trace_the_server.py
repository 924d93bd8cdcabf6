# expect: ptrace refused
import ctypes
import os

PTRACE_ATTACH = 16
libc = ctypes.CDLL(None, use_errno=True)
if libc.ptrace(PTRACE_ATTACH, os.getppid(), None, None) != 0:
    raise PermissionError(f"ptrace refused: {os.strerror(ctypes.get_errno())}")
