# expect-message: signal only works in main thread
# Class 4: a signal handler is handed the current frame. Learner code runs in a thread of
# its own, and Python lets only the main thread install a handler: the door is shut by the
# interpreter, and the top level fails with that error.
import signal

signal.signal(signal.SIGALRM, lambda number, frame: frame.f_back.f_globals.clear())
signal.setitimer(signal.ITIMER_REAL, 0.001)


def independent_copy(t):
    return t.detach()
