# expect: same-state=correct buffers=correct unchanged-after-training=wrong restores=correct
# Copies into one module-level dict of buffers: each call overwrites the snapshot handed
# out before, so "best = snapshot(model)" follows every later snapshot.
import torch

_best = {}


def snapshot(model):
    with torch.no_grad():
        for k, v in model.state_dict().items():
            if k in _best:
                _best[k].copy_(v)
            else:
                _best[k] = v.clone()
    return _best
