# expect-message: left a thread running
# A thread left running could change tensors while the grader measures them: the function
# is right, but its measurement cannot be trusted, so it earns nothing (and no accusation).
import threading
import time


def meddle():
    while True:
        time.sleep(0.001)


threading.Thread(target=meddle, daemon=True).start()


def independent_copy(t):
    return t.detach().clone()
