# expect-message: `function.__code__` is not available
# Swapping the code inside a grader function keeps the function object the same.
import graders.checker.measure as pristine


def fake_bits(t):
    return b"unchanged"


pristine.bits.__code__ = fake_bits.__code__


def freeze(module):
    module.eval()
