"""Child side: the second line behind ``learner``'s allowlist, and the checks after learner code.

``learner`` confines what learner code can reach from Python. This module watches what
the interpreter itself does on its behalf, through an audit hook (``sys.addaudithook``:
once added it cannot be removed). As tampering (evidence, ``integrity``):

- when learner code made the call itself: building code or function objects, reading
  frames (``sys._getframe``, ``sys._current_frames``), loading marshalled code;
- when learner code is anywhere on the stack: ``ctypes``, ``gc``'s object walks, trace
  and profile functions, another audit hook, opening ``/proc/<pid>/mem`` or
  ``/proc/<pid>/fd``.

As not available (an ordinary ``PermissionError``, and an ``error`` naming the line if the
code then fails; refusing is not accusing), when learner code is anywhere on the stack:
new processes (which the kernel refuses too: the job's seccomp filter), sockets, and
unpickling classes (``torch.load(..., weights_only=False)``, ``numpy.load(...,
allow_pickle=True)``).

Library code that learner code calls may read frames or build code for itself
(``traceback.print_exc()``, ``logging.exception()``, ``torch.compile``): the frames it
hands back are inert, because ``learner`` refuses every attribute of a frame.

Learner code is recognised by provenance: its code objects come from
``learner.compile_learner`` and carry ``LEARNER_FILE``. The hook never calls anything
learner code may have defined (no ``str()``, ``repr()`` or attribute lookups on its
objects), so it can ignore the events it raises itself while it works.

After learner code: ``checkpoint`` puts back torch's global defaults and whatever was
replaced in the watched modules (``snapshot``), and ``violations`` adds the global state
learner code may not leave behind (threads, trace functions, torch's interception modes,
saved-tensor hooks, global module and optimizer hooks).
"""

from __future__ import annotations

import _thread
import builtins
import functools
import importlib
import os
import sys
import threading
import types
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

import torch

from .annotations import compiled_type, plain_text
from .learner import (
    ATTR,
    LEARNER_FILE,
    REFUSALS,
    forget_refusals,
    tampering,
)
from .ownership import SCAN_CODE, learners_function
from .snapshot import Snapshot, added_builtins, changed_functions, restore

DIRECT = frozenset(
    {
        "code.__new__",
        "function.__new__",
        "sys._getframe",
        "sys._current_frames",
        "marshal.loads",
        "marshal.load",
        "sys._getframemodulename",
    }
)
ANYWHERE = frozenset(
    {
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys.settrace",
        "sys.setprofile",
        "sys.addaudithook",
        "sys.remote_exec",
        "cpython.remote_debugger_script",
    }
)
# Not available (kind of refusal, see ``learner.Refusals.refuse``), learner code anywhere
# on the stack.
NOT_AVAILABLE = {
    "pickle.find_class": "pickle",
    "subprocess.Popen": "process",
    "os.system": "process",
    "os.exec": "process",
    "os.fork": "process",
    "os.forkpty": "process",
    "os.posix_spawn": "process",
    "os.spawn": "process",
    "socket.__new__": "network",
    "socket.connect": "network",
    "socket.bind": "network",
}
PRIVATE_FILES = ("/mem", "/fd/", "/environ", "/maps", "/pagemap")
# The doors from an object into a frame: Python raises ``object.__getattr__`` on each read,
# whoever reads (a match pattern, ``functools.update_wrapper`` reading the name its caller
# chose, a template formatted by library code). With learner code on the stack such a read
# is evidence; a traceback's frame read by code that only turns it into text (``traceback``,
# which ``logging.exception`` uses, torch's own error reports, and the one place grader
# code reads a learner's exception, ``sandbox/raised.py``) is not, as those never hand the
# frame back.
FRAME_DOORS = {
    "gi_frame": "a generator's",
    "cr_frame": "a coroutine's",
    "ag_frame": "an async generator's",
    "tb_frame": "a traceback's",
}
TRACEBACK_READERS = (
    importlib.import_module("traceback").__file__ or "?",
    os.path.dirname(torch.__file__ or "?") + os.sep,
    importlib.import_module("graders.sandbox.raised").__file__ or "?",
)
# Where every string ``typing`` evaluates as a type passes: ``ForwardRef`` compiles it
# (``get_type_hints``, ``singledispatch``'s ``register``, ``List["..."]``), and the real
# ``eval`` runs the code later. Taken at import, in the warm process: a code object, not a
# name learner code could shadow.
FORWARD_REF = typing.ForwardRef.__init__.__code__
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
        sys.addaudithook(_hook(events, set()))
        _INSTALLED[0] = True
    events.clear()
    forget_refusals()
    # The threads there now are the grader's (the main thread, the task's own): each is
    # judged by its stack. One started later was started by learner code, or for it (a
    # pool's worker, whose stack holds no frame of learner code): learner context, always.
    # Until the job's last check (``violations``): where the process lives on (the
    # in-process fake), its later threads are not a job's.
    _GRADERS_THREADS.clear()
    # This thread too: the sandbox starts the task's with ``_thread``, which ``threading``
    # does not list.
    _GRADERS_THREADS.update([_thread.get_ident(), *(t.ident for t in threading.enumerate())])
    _JOB[0] = True
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

    def violations(
        restore: Any = restore,
        functions: Any = changed_functions,
        left_running: Any = left_running,
        tampering: Any = tampering,
        list: Any = list,
        dict: Any = dict,
        job: list[bool] = _JOB,
    ) -> list[str]:
        checkpoint()
        # Functions once, at the end: a swapped code measured wrong, and it is evidence.
        found = tampering() + events + restore(before) + functions(before)
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
    _JOB[0] = False


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


def from_learner(
    value: Any,
    learner: str = LEARNER_FILE,
    type: Any = type,
    mro: Any = type.__dict__["__mro__"].__get__,
    namespace: Any = type.__dict__["__dict__"].__get__,
    partial: Any = functools.partial,
    function: Any = types.FunctionType,
    method: Any = types.MethodType,
) -> bool:
    """Whether the callable ``value`` runs code compiled from the learner's source: a
    function, a bound method, a ``functools.partial`` of one, an instance whose class's
    ``__call__`` is one. Read through C-level slots only: no code of ``value``'s runs."""
    for _ in range(8):  # a partial of a method of a partial ...: a few layers, not a loop
        kind = type(value)
        if kind is function:
            return bool(value.__code__.co_filename == learner)
        if kind is method:
            value = value.__func__
        elif kind is partial:
            value = value.func
        else:
            calls = [namespace(c).get("__call__") for c in mro(kind)]
            value = next((c for c in calls if c is not None), None)
            if type(value) is not function:
                return False
    return False


# What makes a function do something else than it was written to: set on a function that
# is not the learner's own (the guard's, the checker's, a library's), it is evidence,
# whatever route reached the function (Python raises the audit event on every route). The
# learner's own include those library code made for it during the job
# (``ownership.learners_function``: ``collections.namedtuple`` sets its ``__new__``'s
# defaults).
FUNCTION_PARTS = frozenset({"__code__", "__defaults__", "__kwdefaults__"})


def _rewired(
    args: tuple[Any, ...],
    parts: frozenset[str] = FUNCTION_PARTS,
    function: Any = types.FunctionType,
    type: Any = type,
    len: Any = len,
    learners: Any = learners_function,
) -> bool:
    if len(args) < 2 or args[1] not in parts or type(args[0]) is not function:
        return False
    return not (from_learner(args[0]) or learners(args[0]))


_GRADERS_THREADS: set[int | None] = set()  # see ``arm``
_JOB = [False]  # a job's learner code may be running: from ``arm`` to its ``violations``


def _learner_on_stack(
    frame: Any,
    learner: str = LEARNER_FILE,
    ident: Any = _thread.get_ident,
    graders: set[int | None] = _GRADERS_THREADS,
    job: list[bool] = _JOB,
) -> bool:
    """Is learner code running here: a frame of its on the stack, or, during a job, a thread
    the grader did not start (``arm``, ``_thread_of``)?"""
    if job[0] and ident() not in graders:
        return True
    while frame is not None:
        if frame.f_code.co_filename == learner:
            return True
        frame = frame.f_back
    return False


def _thread_of(
    start: Any,
    on_stack: Any = _learner_on_stack,
    getframe: Any = sys._getframe,
    ident: Any = _thread.get_ident,
    graders: set[int | None] = _GRADERS_THREADS,
) -> Callable[..., Any]:
    """``threading``'s way to start a thread, which also says whose the thread is: one the
    grader's code starts during a job (where the process lives on, a batch's pool starts its
    threads while another thread's job runs) is the grader's, as the threads there at
    ``arm`` are. The new thread says so itself, by its own ident, before anything else runs
    in it, and unsays it when done (the ident may be given to a learner's thread next). A
    thread learner code starts, by this way or ``_thread``'s, is not listed: learner
    context. Installed in the warm process, before the snapshot: learner code that replaces
    it is seen."""

    def start_new_thread(function: Any, args: Any, kwargs: Any = None) -> Any:
        if on_stack(getframe(1)):
            return start(function, args, kwargs or {})

        def graders_thread(*args: Any, **kwargs: Any) -> Any:
            me = ident()
            graders.add(me)
            try:
                return function(*args, **kwargs)
            finally:
                graders.discard(me)

        return start(graders_thread, args, kwargs or {})

    return start_new_thread


threading._start_new_thread = _thread_of(_thread.start_new_thread)  # type: ignore[attr-defined]


def _private_file(
    event: str, args: tuple[Any, ...], type: Any = type, str: Any = str, files: Any = PRIVATE_FILES
) -> bool:
    if event != "open" or type(args[0]) is not str:
        return False
    path = args[0]
    return path.startswith(("/proc/", "/dev/fd/")) and (
        path.startswith("/dev/fd/") or any(f in path for f in files)
    )


def _forward_reference_typed(
    frame: Any,
    source: Any,
    type: Any = type,
    str: Any = str,
    bytes: Any = bytes,
    learner: str = LEARNER_FILE,
    compiled: Any = compiled_type,
    plain: Any = plain_text,
    guarded_read: str = ATTR,
) -> bool:
    """May ``typing.ForwardRef`` (``frame``, its ``__init__``) compile ``source`` while
    learner code runs? The compiler let the learner's annotations through as plain types
    whose reads are guarded (``annotations.compiled_type``); a text made at run time (a
    name bound to a built string, ``__annotations__`` set, ``List[text]``) is held to the
    same rule here, where every such text passes. Text of a library's own source (a
    module first imported during the job writing ``Optional["Foo"]``) is that library's,
    and a plain type as written is enough: the very string object is a constant of a code
    object running between the learner's frame and typing."""
    if type(source) is bytes:  # compile() hands the audit hook its text as UTF-8
        try:
            source = source.decode()
        except UnicodeDecodeError:
            return False
    if type(source) is not str:
        return False
    arg = frame.f_locals.get("arg")
    caller = frame.f_back
    while type(arg) is str and caller is not None and caller.f_code.co_filename != learner:
        if any(c is arg for c in caller.f_code.co_consts):
            return bool(plain(source))
        caller = caller.f_back
    return bool(compiled(source, guarded_read))


def _shown(source: Any, type: Any = type, bytes: Any = bytes, str: Any = str) -> str:
    text = source.decode(errors="replace") if type(source) is bytes else source
    return text[:80] if type(text) is str else "?"


def _hook(events: list[str], busy: set[int]) -> Callable[[str, tuple[Any, ...]], None]:
    # Everything the hook calls is bound here, so replacing a module attribute later cannot
    # switch it off; and it calls nothing learner code may have defined.
    def hook(
        event: str,
        args: tuple[Any, ...],
        getframe: Any = sys._getframe,
        direct: Any = DIRECT,
        anywhere: Any = ANYWHERE,
        on_stack: Any = _learner_on_stack,
        private_file: Any = _private_file,
        learner: str = LEARNER_FILE,
        not_available: Any = NOT_AVAILABLE,
        refuse: Any = REFUSALS.refuse,
        rewired: Any = _rewired,
        scan: Any = SCAN_CODE,
        ident: Any = _thread.get_ident,
        doors: Any = FRAME_DOORS,
        readers: tuple[str, ...] = TRACEBACK_READERS,
        forward_ref: Any = FORWARD_REF,
        typed: Any = _forward_reference_typed,
        shown: Any = _shown,
    ) -> None:
        me = ident()
        # Each thread's own: a flag of the process's would let one thread's events pass
        # unchecked while another thread's are being checked.
        if me in busy or event == "builtins.id":
            return  # an event the checks below raise themselves
        busy.add(me)
        refusal = None
        try:
            caller = getframe(1)
            if caller.f_code is scan:
                refused = False  # ``ownership.made_here`` lists the young objects: the grader's
            elif event in direct:
                refused = caller.f_code.co_filename == learner
            elif event in anywhere or event.startswith("ctypes.") or private_file(event, args):
                refused = on_stack(caller)
            elif event == "object.__setattr__" and rewired(args):
                refused = on_stack(caller)
            elif event == "object.__getattr__" and len(args) > 1 and args[1] in doors:
                refused = on_stack(caller) and not (
                    args[1] == "tb_frame" and caller.f_code.co_filename.startswith(readers)
                )
            elif event in not_available and on_stack(caller):
                refused, refusal = False, refuse(not_available[event], event)
            elif (
                event == "compile"
                and caller.f_code is forward_ref
                and on_stack(caller)
                and not typed(caller, args[0])
            ):
                refused, refusal = False, refuse("annotation", shown(args[0]))
            else:
                refused = False
            if refused:
                events.append(
                    "opened the process's own files"
                    if event == "open"
                    else f"looked inside {doors[args[1]]} frame (`.{args[1]}`)"
                    if event == "object.__getattr__"
                    else f"used {event}"
                )
        finally:
            busy.discard(me)
        if refusal is not None:
            raise refusal
        if refused:
            raise RuntimeError(f"{event} is not allowed in graded code")

    return hook
