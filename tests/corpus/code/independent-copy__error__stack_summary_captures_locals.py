# expect-message: `traceback.walk_stack` is not available
# The checker's locals (a variant's parameters) as text, through a library that walks frames.
import traceback


def independent_copy(t):
    summary = traceback.StackSummary.extract(traceback.walk_stack(None), capture_locals=True)
    seen = [frame.locals for frame in summary]
    return t.detach().clone() if seen else t
