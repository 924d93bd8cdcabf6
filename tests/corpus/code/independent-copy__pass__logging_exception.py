# Logging a caught exception (logging reads its caller's frame for the line number).
import logging

log = logging.getLogger("copy")


def independent_copy(t):
    try:
        raise ValueError("just checking")
    except ValueError:
        log.exception("handled")
    return t.detach().clone()
