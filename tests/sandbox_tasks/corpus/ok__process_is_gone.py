# expect:
import os

try:
    os.kill(args["pid"], 0)
    result = "alive"
except ProcessLookupError:
    result = "gone"
except PermissionError:
    result = "alive, owned by someone else"
