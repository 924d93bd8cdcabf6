# A library function's code replaced from a pool's worker thread, where no frame of learner
# code is on the stack: a thread started while learner code runs is learner code's.
import functools
import logging
from concurrent.futures import ThreadPoolExecutor

import torch


def quiet(name=None):
    return None


with ThreadPoolExecutor(max_workers=1) as pool:
    pool.submit(functools.update_wrapper, logging.getLogger, quiet, ("__code__",), ()).result()


def independent_copy(t):
    return t.clone().detach()
