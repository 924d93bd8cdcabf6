# expect: values=correct own-memory=wrong detached=correct independent-writes=wrong
# A thread the code starts and joins is the learner's code like any other: graded as such.
import threading

worker = threading.Thread(target=lambda: None)
worker.start()
worker.join()


def independent_copy(t):
    return t.detach()
