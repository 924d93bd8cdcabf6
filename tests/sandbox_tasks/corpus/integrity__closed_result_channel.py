# expect: closed or replaced
import os

os.closerange(3, 4096)
result = "nobody will hear this"
