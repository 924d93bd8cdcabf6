# expect: exit status 3
import os

os._exit(3)
