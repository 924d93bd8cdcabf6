# A thread left running could change tensors while the grader measures them.
import threading
import time


def meddle():
    while True:
        time.sleep(0.001)


threading.Thread(target=meddle, daemon=True).start()
