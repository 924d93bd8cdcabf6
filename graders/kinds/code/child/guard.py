"""Child side: the second line behind ``learner``'s allowlist, armed for each job, and the
checks after learner code.

``learner`` confines what learner code can reach from Python; ``arm`` installs the audit
hook (``audit``: what the interpreter does on learner code's behalf, evidence or refused)
and returns the checks of the job against the warm process's snapshot:

- ``checkpoint``, after every return from learner code, before the checker measures: puts
  back torch's global defaults and whatever was replaced in the watched modules
  (``snapshot``) or registered in the tables modules keep (``contents``: a type's entry in
  copy's dispatch table, an ABC's registry ...); global state learner code left (a hook, a
  mode, a trace function) is evidence then, even if it is gone by the end;
- ``violations``, at the end: the evidence so far, the functions whose code was swapped,
  and a thread of the learner's still running (not evidence: an ``error``).
"""

from __future__ import annotations

import _thread
import builtins
import importlib
import sys
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from .audit import GRADERS_THREADS, JOB, audit_hook, from_learner
from .contents import changed as changed_contents
from .functions import changed_functions
from .learner import REFUSALS, forget_refusals, tampering
from .snapshot import Snapshot, added_builtins, restore

_C = torch._C
_module_hooks = importlib.import_module("torch.nn.modules.module")
_optimizer_hooks = importlib.import_module("torch.optim.optimizer")
GLOBAL_HOOKS = (
    (
        _module_hooks,
        (
            "_global_backward_pre_hooks",
            "_global_backward_hooks",
            "_global_forward_pre_hooks",
            "_global_forward_hooks",
            "_global_buffer_registration_hooks",
            "_global_module_registration_hooks",
            "_global_parameter_registration_hooks",
        ),
    ),
    (_optimizer_hooks, ("_global_optimizer_pre_hooks", "_global_optimizer_post_hooks")),
)


class Armed(NamedTuple):
    """What ``arm`` hands back: the final check, and checkpoints around learner code."""

    violations: Callable[[], list[str]]  # the evidence of tampering so far, plus final checks
    # Put back now, after each piece of learner code (given the global state before it).
    checkpoint: Callable[..., None]
    global_state: Callable[[], list[str]]  # the global state now (before learner code runs)


_EVENTS: list[str] = []  # what the hook refused since the last ``arm``
_INSTALLED: list[bool] = [False]


def arm(before: Snapshot) -> Armed:
    """Install the hook (once per process) and return the checks against ``before``.

    In the sandbox every job is a fresh child, so this runs once per job; where a process
    lives on (the in-process fake in tests), later calls reuse the one hook and start
    afresh. ``before`` is taken once in the warm process (``snapshot(namespaces())``), so
    a child only pays for the comparison: about a millisecond when nothing changed.
    """
    events = _EVENTS
    if not _INSTALLED[0]:
        sys.addaudithook(audit_hook(events, set()))
        _INSTALLED[0] = True
    events.clear()
    forget_refusals()
    # The threads there now are the grader's (the main thread, the task's own): each is
    # judged by its stack. One started later was started by learner code, or for it (a
    # pool's worker, whose stack holds no frame of learner code): learner context, always.
    # Until the job's last check (``violations``): where the process lives on (the
    # in-process fake), its later threads are not a job's.
    GRADERS_THREADS.clear()
    # This thread too: the sandbox starts the task's with ``_thread``, which ``threading``
    # does not list.
    GRADERS_THREADS.update([_thread.get_ident(), *(t.ident for t in threading.enumerate())])
    JOB[0] = True
    threads = _thread._count()
    dtype = torch.get_default_dtype()
    device = _device_context()
    names = tuple(vars(builtins))  # now, not at the snapshot: where the process lives on
    # (the in-process fake), what it added to builtins since is not a job's

    # Bound now: nothing learner code does later can change what these names mean here.
    def checkpoint(
        had: tuple[str, ...] = (),
        restore: Any = restore,
        set_dtype: Any = torch.set_default_dtype,
        set_device: Any = torch.set_default_device,
        device_context: Any = _device_context,
        global_state: Any = _global_state,
        added: Any = added_builtins,
        contents: Any = changed_contents,
    ) -> None:
        """After every return from learner code, before the checker measures anything: what
        was replaced is put back, and global state learner code left (a hook, a mode, a
        trace function) is evidence now, even if it is gone by the end. ``had``: the global
        state when the learner code was called (``global_state()``), a checker's own."""
        set_dtype(dtype)  # torch.set_default_dtype is allowed; it also swaps torch.Storage
        # torch.set_default_device is allowed too (torch's docs call it at the top of a
        # script): it is a torch function mode of torch's own, put back like the dtype
        # before the modes left behind are judged.
        if device_context() is not device:
            set_device(None if device is None else device.device)
        events.extend(restore(before))
        events.extend(added(names))
        events.extend(
            found for found in global_state() if found not in had or found == FROM_GRADED_CODE
        )
        # What the modules' tables hold: a registration the learner made since the last
        # checkpoint (copy's dispatch table, an ABC's registry ...), put back. After the
        # global hooks are judged: they are such tables too, and are named for what they are.
        events.extend(contents(before.contents))

    def violations(
        restore: Any = restore,
        functions: Any = changed_functions,
        left_running: Any = left_running,
        tampering: Any = tampering,
        list: Any = list,
        dict: Any = dict,
        job: list[bool] = JOB,
    ) -> list[str]:
        checkpoint()
        # Functions once, at the end: a swapped code measured wrong, and it is evidence.
        found = tampering() + events + restore(before) + functions(before.functions)
        left_running(threads)
        job[0] = False
        return [*dict.fromkeys(found)]

    return Armed(violations, checkpoint, _global_state)


def _device_context(
    local: Any = torch._GLOBAL_DEVICE_CONTEXT,
    getattr: Any = getattr,
) -> Any:
    """The mode ``torch.set_default_device`` keeps for this thread (None: none set)."""
    return getattr(local, "device_context", None)


def job_over() -> None:
    """The job's learner code is done (``task.run`` returns): threads are judged by their
    stack again (where the process lives on: the in-process fake)."""
    JOB[0] = False


def left_running(threads: int, count: Any = _thread._count) -> None:
    """A thread of the learner's still running at the end: not evidence (a pool left open is a
    mistake), but no full marks either, as it could change what was measured."""
    if count() > threads:
        REFUSALS.refuse("thread", "threading")


def _global_state(
    gettrace: Any = sys.gettrace,
    getprofile: Any = sys.getprofile,
    modes: Any = _C._len_torch_function_stack,
    dispatch: Any = _C._len_torch_dispatch_stack,
    saved: Any = _C._autograd._top_saved_tensors_default_hooks,
    hooks: Any = GLOBAL_HOOKS,
    getattr: Any = getattr,
    len: Any = len,
) -> list[str]:
    """Global state learner code may have left: each one is evidence."""
    found = []
    if gettrace() is not None or getprofile() is not None:
        found.append("installed a trace function")
    if modes() or dispatch():
        found.append("left a torch function or dispatch mode active")
    if saved(False) is not None:
        found.append("left saved-tensor hooks active")
    registered = [
        hook
        for module, names in hooks
        for name in names
        for hook in list(getattr(module, name, {}).values())
    ]
    if registered:
        found.append("registered a global module or optimizer hook")
    if any(from_learner(hook) for hook in [gettrace(), getprofile(), *registered]):
        found.append(FROM_GRADED_CODE)
    return found


# Global state whose code graded code wrote: evidence wherever it is found, whenever (a
# finalizer of a learner object can install it while only the checker's code runs, between
# two calls of the learner's function, and remove it before the last check).
FROM_GRADED_CODE = "left a hook or trace function of its own in place while the checker ran"
