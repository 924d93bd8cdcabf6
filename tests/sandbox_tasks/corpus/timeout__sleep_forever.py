# expect: time limit
import time

time.sleep(10**6)
