"""Child side: stop, notice and undo learner code that tampers with the grader's own process.

Tripwires, all set before learner code runs:

- an audit hook (``sys.addaudithook``: once added it cannot be removed) that refuses the
  tools for reaching into the harness while learner code is on the stack: frames
  (``sys._getframe``, ``tb_frame``, ...), ``ctypes``; and always: ``gc.get_referrers`` /
  ``get_objects``, ``sys.settrace``/``setprofile``, ``/proc/*/mem``, adding another audit
  hook. It also records a swap of ``__code__`` or defaults inside a torch or graders
  function (the function object stays the same, so the snapshot would not see it);
- ``snapshot``: the attributes of the modules and classes grading relies on, compared
  (and put back) after learner code ran;
- the thread count, trace functions, and torch's global interception points (function and
  dispatch modes, default saved-tensor hooks), checked at the end.

Because frames cannot be reached, learner code cannot find the guard's state. The checks
bind what they call as default arguments when this module is imported (before learner
code), so patching ``builtins`` or this module afterwards does not blind them.
"""

from __future__ import annotations

import _thread
import collections
import enum
import logging
import sys
import traceback
import typing
from typing import Any, Callable, NamedTuple

import torch

from .snapshot import Snapshot, restore

LEARNER_FILE = "<your code>"
BLOCKED_EVENTS = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace",
                            "sys.setprofile", "sys.addaudithook", "sys._current_frames"})
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
# Library code that reads frames for names and lines only (torch.manual_seed formats a stack,
# namedtuple and Enum look up the caller's module, logging its file and line).
FRAME_READERS = frozenset({
    (traceback.__file__, "format_stack"), (traceback.__file__, "extract_stack"),
    (traceback.__file__, "_extract_from_extended_frame_gen"), (collections.__file__, "namedtuple"),
    (typing.__file__, "_caller"), (enum.__file__, "_create_"), (logging.__file__, "<lambda>"),
})
WATCHED_PREFIXES = ("torch", "graders", "builtins", "json", "math", "copy", "traceback")
SCALARS = (int, float, bool, str, type(None))
_C = torch._C


class Armed(NamedTuple):
    """What ``arm`` hands back: the final check, and checkpoints around learner code."""

    violations: Callable[[], list[str]]  # everything seen so far, plus the final checks
    checkpoint: Callable[[], None]  # compare and put back now (after each piece of learner code)


def arm(before: Snapshot) -> Armed:
    """Install the hook (once per child) and return the checks against ``before``.

    ``before`` is taken once in the warm process (``snapshot(namespaces())``), so a child
    only pays for the comparison: about a millisecond when nothing changed. Checkpoints
    after each piece of learner code put back what it replaced before the harness goes on
    measuring, so a patch cannot be undone later to hide it.
    """
    events: list[str] = []
    sys.addaudithook(_hook(events, [False]))
    threads = _thread._count()

    # Bound now: learner code may replace the module attributes these names come from.
    def checkpoint(restore: Any = restore) -> None:
        events.extend(restore(before))

    def violations(restore: Any = restore, global_state: Any = _global_state, list: Any = list, dict: Any = dict) -> list[str]:
        return list(dict.fromkeys(events + restore(before))) + global_state(threads)

    return Armed(violations, checkpoint)


def _frame_leaks(caller: Any, readers: Any = FRAME_READERS, learner: str = LEARNER_FILE) -> bool:
    """Would a frame reach learner code? Yes unless no learner code is running at all, or a
    known library function reads the frames for text only."""
    code = caller.f_code
    if code.co_filename == learner:
        return True
    if (code.co_filename, code.co_name) in readers:
        return False
    frame = caller
    while frame is not None:
        if frame.f_code.co_filename == learner:
            return True
        frame = frame.f_back
    return False


def _reads_memory(event: str, args: tuple[Any, ...], isinstance: Any = isinstance, str: Any = str) -> bool:
    return event == "open" and isinstance(args[0], str) and args[0].startswith("/proc/") and args[0].endswith("/mem")


def _is_patch(obj: Any, name: Any, value: Any = None, type: Any = type, isinstance: Any = isinstance,
              callable: Any = callable, str: Any = str, prefixes: Any = WATCHED_PREFIXES, scalars: Any = SCALARS) -> bool:
    # A counter bump on a torch class (RemovableHandle.next_id) is data, not a patch.
    is_function = type(obj).__name__ == "function"
    module = obj.__dict__.get("__module__") if isinstance(obj, type) else (obj.__module__ if is_function else None)
    if not isinstance(module, str) or not module.startswith(prefixes):
        return False
    if str(name) in ("__code__", "__defaults__", "__kwdefaults__"):
        return True
    return not isinstance(value, scalars) and (callable(value) or hasattr(type(value), "__get__"))


def _global_state(threads: int, count: Any = _thread._count, gettrace: Any = sys.gettrace, getprofile: Any = sys.getprofile,
                  modes: Any = _C._len_torch_function_stack, dispatch: Any = _C._len_torch_dispatch_stack,
                  saved: Any = _C._autograd._top_saved_tensors_default_hooks) -> list[str]:
    found = []
    if count() > threads:
        found.append("started a thread")
    if gettrace() is not None or getprofile() is not None:
        found.append("installed a trace function")
    if modes() or dispatch():
        found.append("left a torch function or dispatch mode active")
    if saved(False) is not None:
        found.append("left saved-tensor hooks active")
    return found


def _hook(events: list[str], busy: list[bool]) -> Callable[[str, tuple[Any, ...]], None]:
    # Everything the hook calls is bound here, so replacing this module's functions later
    # cannot switch it off.
    def hook(event: str, args: tuple[Any, ...], getframe: Any = sys._getframe, blocked: Any = BLOCKED_EVENTS,
             frame_attrs: Any = FRAME_ATTRIBUTES, str: Any = str, getattr: Any = getattr, leaks: Any = _frame_leaks,
             reads_memory: Any = _reads_memory, is_patch: Any = _is_patch) -> None:
        if busy[0] or event == "builtins.id":
            return
        busy[0] = True  # the checks below raise audit events themselves
        try:
            refused = event in blocked or reads_memory(event, args)
            if event == "sys._getframe" or event.startswith("ctypes.") or (event == "object.__getattr__" and args[1] in frame_attrs):
                refused = leaks(getframe(1))
            if refused:
                events.append("opened the process's own memory" if event == "open" else f"used {event}")
            elif event == "object.__setattr__" and is_patch(*args[:3]):
                events.append(f"replaced {str(args[1])} of {str(getattr(args[0], '__qualname__', 'a grader or torch object'))}")
        finally:
            busy[0] = False
        if refused:
            raise RuntimeError(f"{event} is not allowed in graded code")

    return hook
