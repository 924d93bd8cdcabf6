# expect: values=correct own-memory=correct detached=wrong independent-writes=correct
# An inference-mode copy cannot be written outside that mode; the function enters the
# mode and never leaves it, so the checker's writes would run inside it too. Grad mode,
# inference mode and the like are the learner's to change (some exercises measure them);
# the checker measures in the mode it left: not full marks (detached: wrong).
import torch


def independent_copy(t):
    torch.inference_mode().__enter__()
    return t.clone()
