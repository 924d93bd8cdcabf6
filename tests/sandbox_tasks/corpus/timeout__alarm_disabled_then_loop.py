# expect: time limit
# Every signal the task's thread can block, blocked, then a busy loop: the keeper's SIGKILL
# cannot be blocked. (Python lets only the main thread install handlers; the task's thread
# is not it.)
import signal

signal.alarm(0)
signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
while True:
    pass
