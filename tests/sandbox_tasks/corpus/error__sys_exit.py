# expect: sys.exit(0)
import sys

sys.exit(0)
