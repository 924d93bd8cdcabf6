# expect:
# Closing every descriptor, then opening files to take the step socket's number: the socket
# was never closed (EBADF from the kernel), so the result reaches the keeper, not a decoy.
import os

os.closerange(3, 4096)
files = [open(f"decoy-{i}", "w") for i in range(32)]
result = "written into a decoy file"
