# expect-message: `sys._getframe` is not available
# Walking up into the grader's frames to edit what it measured.
import sys


def forward_b_only(A, B, x):
    frame = sys._getframe(1)
    while frame is not None:
        frame.f_locals.clear()
        frame = frame.f_back
    return B(A(x))
