# expect-message: `logging.currentframe` is not available
# Class 3: logging.currentframe() hands back the caller's frame; f_back leads to the grader.
import logging


def independent_copy(t):
    frame = logging.currentframe()
    while frame is not None:
        if "token" in frame.f_locals:
            frame.f_locals["token"] = "mine"
        frame = frame.f_back
    return t.detach()
