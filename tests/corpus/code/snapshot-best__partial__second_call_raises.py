# expect: same-state=correct buffers=correct unchanged-after-training=wrong restores=correct
# Refuses a second snapshot: "best" is taken once. Keeping the best model means a new
# snapshot each time the model improves.
import copy

_taken = []


def snapshot(model):
    if _taken:
        raise RuntimeError("a snapshot was already taken")
    _taken.append(True)
    return copy.deepcopy(model.state_dict())
