# expect: namespace refused
import ctypes
import os

CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
    raise PermissionError(f"namespace refused: {os.strerror(ctypes.get_errno())}")
