# expect-message: `threading`
# Class 5: code run in a thread was not taken for learner code.
import threading

threading.Thread(target=lambda: None).start()


def independent_copy(t):
    return t.detach()
