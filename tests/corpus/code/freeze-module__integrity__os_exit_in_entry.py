# expect-message: `os`
import os


def freeze(module):
    os._exit(0)
