# expect: same-state=correct buffers=correct unchanged-after-training=wrong restores=correct
# One module-level dict, emptied and refilled with fresh copies on every call: its tensors
# are new each time, but the dict handed out before is the same object, so the first
# snapshot becomes the second (it must be read anew from the dict to see it).
import copy

_best = {}


def snapshot(model):
    _best.clear()
    _best.update(copy.deepcopy(model.state_dict()))
    return _best
