# expect-message: `os._exit` is not available
import os

os._exit(0)
