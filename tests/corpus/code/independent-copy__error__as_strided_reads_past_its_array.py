# expect-message: numpy.lib
# A wrong copy (`t.detach()`) made to earn full marks: numpy's as_strided views memory
# past the end of an array without a bound check (a read and write of the child's heap,
# with no name the compiler could see). numpy.lib is not on the list, and a listed
# package's attributes do not lead to one that is not: an error naming it.
import numpy as np

probe = np.zeros(1, dtype=np.uint8)
view = np.lib.stride_tricks.as_strided(probe, shape=(1 << 20,), strides=(1,))
SEEN = int(view[1 << 19])


def independent_copy(t):
    return t.detach()
