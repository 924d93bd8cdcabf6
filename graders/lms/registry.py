"""The LMSs graders knows, by name: the built-in ones (``lms.BUILTIN_LMSS``) and any
registered since.

    register(Lms(...))   make an LMS known (an LMS's module does, when imported)
    registered()         every LMS, the built-in ones first, in their order
    get_lms("canvas")    one LMS, or None

The intake tries each LMS's download names in this order (``intake.lms_download``), the
roster names a column an LMS calls otherwise (``intake.roster``), and each LMS's export is
one of the export formats (``exports.formats``).
"""

from __future__ import annotations

from importlib import import_module

from . import BUILTIN_LMSS
from .contract import Lms

LMSS: dict[str, Lms] = {}


def register(lms: Lms) -> Lms:
    """Make ``lms`` known under its name (a second LMS of one name replaces the first)."""
    LMSS[lms.name] = lms
    return lms


def registered() -> tuple[Lms, ...]:
    """Every LMS: the built-in ones in their order, then the others as registered."""
    _load_builtin()
    order = list(BUILTIN_LMSS)
    rank = {name: order.index(name) if name in order else len(order) for name in LMSS}
    return tuple(sorted(LMSS.values(), key=lambda lms: rank[lms.name]))


def get_lms(name: str) -> Lms | None:
    _load_builtin()
    return LMSS.get(name)


def unregister(name: str) -> None:
    """Forget the LMS ``name`` (a test's toy LMS, once the test is done)."""
    LMSS.pop(name, None)


def _load_builtin() -> None:
    for module in BUILTIN_LMSS.values():
        import_module(module)  # registers it, once: a module is imported once
