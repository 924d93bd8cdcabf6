"""Child side: the audit hook, what the interpreter does on learner code's behalf.

``sys.addaudithook`` sees what the interpreter does, whoever asked; once added it cannot be
removed (``guard.arm`` adds it, once per process). As tampering (evidence, ``integrity``):

- when learner code made the call itself: building code or function objects, reading
  frames (``sys._getframe``, ``sys._current_frames``), loading marshalled code;
- when learner code is anywhere on the stack: ``ctypes``, ``gc``'s object walks, trace
  and profile functions, another audit hook, opening ``/proc/<pid>/mem`` or
  ``/proc/<pid>/fd``, reading a generator's, coroutine's or traceback's frame, rewiring a
  function that is not the learner's own.

As not available (an ordinary ``PermissionError``, and an ``error`` naming the line if the
code then fails; refusing is not accusing), when learner code is anywhere on the stack:
new processes (which the kernel refuses too: the job's seccomp filter), sockets,
unpickling classes (``torch.load(..., weights_only=False)``, ``numpy.load(...,
allow_pickle=True)``), and a type ``typing`` would compile from text made at run time.

Library code that learner code calls may read frames or build code for itself
(``traceback.print_exc()``, ``logging.exception()``, ``torch.compile``): the frames it
hands back are inert, because ``learner`` refuses every attribute of a frame.

Learner code is recognised by provenance: its code objects come from
``learner.compile_learner`` and carry ``LEARNER_FILE``; during a job, a thread the grader
did not start is learner context too. The hook never calls anything learner code may have
defined (no ``str()``, ``repr()`` or attribute lookups on its objects), so it can ignore
the events it raises itself while it works.
"""

from __future__ import annotations

import _thread
import functools
import importlib
import os
import sys
import threading
import types
import typing
from collections.abc import Callable
from typing import Any

import torch

from .annotations import compiled_type, plain_text
from .learner import ATTR, LEARNER_FILE, REFUSALS
from .ownership import SCAN_CODE, learners_function

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


GRADERS_THREADS: set[int | None] = set()  # see ``arm``
JOB = [False]  # a job's learner code may be running: from ``arm`` to its ``violations``


def learner_on_stack(
    frame: Any,
    learner: str = LEARNER_FILE,
    ident: Any = _thread.get_ident,
    graders: set[int | None] = GRADERS_THREADS,
    job: list[bool] = JOB,
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
    on_stack: Any = learner_on_stack,
    getframe: Any = sys._getframe,
    ident: Any = _thread.get_ident,
    graders: set[int | None] = GRADERS_THREADS,
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


def forward_reference_typed(
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


def audit_hook(events: list[str], busy: set[int]) -> Callable[[str, tuple[Any, ...]], None]:
    # Everything the hook calls is bound here, so replacing a module attribute later cannot
    # switch it off; and it calls nothing learner code may have defined.
    def hook(
        event: str,
        args: tuple[Any, ...],
        getframe: Any = sys._getframe,
        direct: Any = DIRECT,
        anywhere: Any = ANYWHERE,
        on_stack: Any = learner_on_stack,
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
        typed: Any = forward_reference_typed,
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
