"""What is the learner's own, and what the grader's: decided by when it was made.

One rule: an object made since the learner's namespace was made (``own_from_now``, just
before learner code runs) is the learner's; what existed before is the grader's. It
covers what library code makes on the learner's behalf (a namedtuple's class and its
``__new__``, a ``dataclass(slots=True)`` rebuild, a class a learner metaclass writes to
before ``__build_class__`` returns) as well as what learner code makes itself, and it
keeps out what a learner merely names (a metaclass returning ``nn.BatchNorm1d``). The
guards (``namespace``) and the audit hook (``audit``) both ask here.
"""

from __future__ import annotations

import gc
import operator
import types
from itertools import repeat
from typing import Any

from .learner import LEARNER_CODE

_real_type = type
_function_code = vars(types.FunctionType)["__code__"].__get__
_globals = vars(types.FunctionType)["__globals__"].__get__

# ``gc.freeze()`` moves every object the collector tracks into its permanent generation,
# which ``gc.get_objects()`` does not list: an object is new iff that list holds it. Classes,
# functions, modules and instances of classes with a ``__dict__`` are always tracked; an
# untracked object counts as the grader's (refusing, never admitting, by mistake). The
# grader and the course's checkers define their classes at import, none during a job.
_NEW: set[int] = set()  # ids found new: only a new object can ever reuse such an id
_OLD: dict[int, Any] = {}  # id -> object found old, kept alive so that its id stays its own
_freeze, _tracked, _young = gc.freeze, gc.is_tracked, gc.get_objects


def own_from_now() -> None:
    """What exists now is the grader's; what is made from now on, the learner's."""
    _freeze()
    _NEW.clear()
    _OLD.clear()


def made_here(obj: Any) -> bool:
    """Was ``obj`` made since ``own_from_now``? (Never calls anything of ``obj``'s.) A scan
    of the young objects once per object asked about, then a lookup: a class written in a
    loop stays fast."""
    key = id(obj)
    if key in _NEW:
        return True
    if _OLD.get(key, _NEW) is obj:
        return False
    if _tracked(obj) and _scan(obj):
        _NEW.add(key)
        return True
    _OLD[key] = obj
    return False


def _scan(
    obj: Any, same: Any = operator.is_, any: Any = any, map: Any = map, repeat: Any = repeat
) -> bool:
    # The audit hook lets this frame's ``gc.get_objects`` pass (``audit``): the grader's own.
    return bool(any(map(same, _young(), repeat(obj))))


SCAN_CODE = _scan.__code__


def learners_function(f: Any) -> bool:
    """Is the function ``f`` the learner's: compiled from its source, or made since it
    started and running in a namespace made since (a namedtuple's ``__new__``, a dataclass's
    ``__init__``)? A closure of the grader's made during the job runs in the grader's
    module, which is older: it stays the grader's."""
    return id(_function_code(f)) in LEARNER_CODE or (made_here(f) and made_here(_globals(f)))


def learners(obj: Any) -> bool:
    """Is ``obj`` the learner's own: a function by ``learners_function``, anything else made
    since it started, or an instance of a class that was?"""
    if _real_type(obj) is types.FunctionType:
        return learners_function(obj)
    return made_here(obj) or made_here(_real_type(obj))
