# Honest: what a script sets up at its top, as each library's docs show, and library caches
# filled by mere use: logging.basicConfig, warnings filters (simplefilter and one for a
# warning class of its own), functools.lru_cache, re's cache, typing's caches, dataclasses,
# copy.deepcopy of a module and a state dict, torch.func.grad and vmap.
import copy
import dataclasses
import functools
import logging
import re
import typing
import warnings

import torch
import torch.func

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
log = logging.getLogger("copies")
warnings.simplefilter("ignore", category=DeprecationWarning)


class CopyWarning(UserWarning):
    pass


warnings.filterwarnings("ignore", category=CopyWarning)


@dataclasses.dataclass
class Plan:
    shapes: typing.List[typing.Tuple[int, ...]] = dataclasses.field(default_factory=list)


@functools.lru_cache(maxsize=32)
def pattern(name: str) -> re.Pattern:
    return re.compile(rf"{name}_\d+")


model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh())
twin = copy.deepcopy(model)
twin.load_state_dict(copy.deepcopy(model.state_dict()))
slope = torch.func.grad(lambda x: (x**2).sum())(torch.ones(3))
doubled = torch.func.vmap(lambda x: x * 2)(torch.ones(3, 2))


def independent_copy(t: torch.Tensor) -> torch.Tensor:
    plan = Plan()
    plan.shapes.append(tuple(t.shape))
    warnings.warn("copying", CopyWarning)
    log.info("copy of %s matches %s", plan, bool(pattern("copy").match("copy_1")))
    return copy.deepcopy(t.detach())
