"""Pre-warm the fork server, so that children do not pay torch's lazy imports (0.5-2 s each).

Importing torch is not enough: building each optimizer, a non-scalar ``backward``, and the
first use of common modules all import or initialise more on first use. Everything is
done single-threaded, so no OpenMP pool exists to be inherited across ``fork()``.
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Iterable
from typing import Any

# Standard modules a checker or learner may import that torch does not already load; a
# child may be unable to read the standard library later (plain level, private prefix).
EXTRA_STDLIB = (
    "decimal",
    "fractions",
    "statistics",
    "faulthandler",
    "resource",
    "tracemalloc",
    "unicodedata",
    "copy",
    "traceback",
)


def warm(modules: Iterable[str]) -> list[str]:
    """Import torch and ``modules`` and exercise torch once; return problems, one per line.

    A module that cannot be imported is reported, not fatal: jobs naming it are refused
    with the import error, every other job runs.
    """
    import torch

    torch.set_num_threads(1)
    if torch.get_num_interop_threads() != 1:
        torch.set_num_interop_threads(1)
    _exercise_torch(torch)
    problems = []
    for name in (*EXTRA_STDLIB, "numpy", *modules):
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - reported to the runner, see docstring
            problems.append(f"{name}: {type(exc).__name__}: {exc}")
    return problems


def quiet() -> None:
    """Turn the collector off until ``settle``: importing torch and warming it makes some
    330,000 objects, and each full collection on the way scans them all (about a quarter of
    the warm-up's CPU time, and a last collection 0.2-0.3 s more)."""
    gc.disable()


def settle() -> None:
    """Once everything children share is in place: freeze it, so that children never touch
    (and copy) the warm objects when collecting, and turn the collector back on. Nothing is
    collected first: the few cycles the warm-up left (about 6 MiB of address space) are
    frozen with the rest rather than paid for with a scan of the whole heap."""
    gc.freeze()
    gc.enable()


def _exercise_torch(torch: Any) -> None:
    weight = torch.nn.Parameter(torch.ones(2, 2))
    out = weight * torch.tensor([1.0, 2.0])
    out.backward(gradient=torch.ones_like(out))  # non-scalar backward
    torch.autograd.grad((weight * 2).sum(), weight)
    with torch.no_grad(), torch.inference_mode():
        (weight + 1).clone()
    repr(weight.detach())  # tensor printing has its own lazy set-up
    _modules(torch)
    _optimizers(torch)


def _modules(torch: Any) -> None:
    net = torch.nn.Sequential(
        torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2), torch.nn.ReLU(), torch.nn.Dropout(0.5)
    )
    net(torch.ones(3, 2)).sum().backward()
    net.eval()
    net(torch.ones(3, 2))
    torch.nn.functional.mse_loss(torch.ones(2, requires_grad=True), torch.zeros(2)).backward()


def _optimizers(torch: Any) -> None:
    """Build and step every optimizer class once; the ones needing special inputs stay cold."""
    for name in getattr(torch.optim, "__all__", ()):
        cls = getattr(torch.optim, name)
        if (
            not (isinstance(cls, type) and issubclass(cls, torch.optim.Optimizer))
            or cls is torch.optim.Optimizer
        ):
            continue
        weight = torch.nn.Parameter(torch.ones(2, 2))
        try:
            optimizer = cls([weight], lr=0.1)
            (weight * weight).sum().backward()
            closure = (lambda w=weight: (w * w).sum()) if name == "LBFGS" else None
            optimizer.step(closure)
            optimizer.zero_grad()
        except Exception:  # noqa: BLE001 - SparseAdam wants sparse gradients: it stays cold
            continue
