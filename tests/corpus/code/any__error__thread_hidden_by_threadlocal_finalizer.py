# expect-message: left a thread running
# A thread whose Python function returns at once, so _thread._count() drops back, but whose
# thread-local value is finalized afterwards (PyThreadState_Clear runs after the count is
# decremented) and keeps that thread running Python code for the rest of the process.
import threading
import time

local = threading.local()
ticks = []


class Lingerer:
    def __del__(self):
        while True:
            ticks.append(1)
            time.sleep(0.001)


def body():
    local.value = Lingerer()


threading.Thread(target=body, daemon=True).start()
time.sleep(0.2)


def independent_copy(t):
    if len(ticks) < 10:
        raise RuntimeError("the hidden thread is not running")
    return t.detach().clone()
