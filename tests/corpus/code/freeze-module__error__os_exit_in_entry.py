# expect-message: `os._exit` is not available
import os


def freeze(module):
    os._exit(0)
