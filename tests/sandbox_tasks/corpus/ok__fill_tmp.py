# expect:
import errno
import os


def fill(directory, size, count):
    try:
        for i in range(count):
            with open(os.path.join(directory, f"{args['token']}-{i}"), "wb") as f:
                f.write(b"\0" * size)
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "no error"


result = {"tmp": fill("/tmp", 1 << 20, 1000), "one_huge_file": fill(".", 64 << 20, 1), "home": os.environ["HOME"] == os.getcwd()}
