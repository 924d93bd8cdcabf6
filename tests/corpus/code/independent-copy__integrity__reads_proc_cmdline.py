# expect-message: /proc
# What the sandbox's pid 1 was started with: the files of other processes are not for graded code.
with open("/proc/1/cmdline", "rb") as f:
    seen = f.read()


def independent_copy(t):
    return t.detach().clone()
