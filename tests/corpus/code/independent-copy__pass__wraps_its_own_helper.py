# functools.wraps, and special names set by hand, on the learner's own functions.
import functools


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)

    wrapper.__doc__ = "A copy, traced."
    return wrapper


@traced
def independent_copy(t):
    return t.detach().clone()
