# expect-message: looked inside a frame
# Class 4: a signal handler is handed the current frame.
import signal

signal.signal(signal.SIGALRM, lambda number, frame: frame.f_back.f_globals.clear())
signal.setitimer(signal.ITIMER_REAL, 0.001)


def independent_copy(t):
    return t.detach()
