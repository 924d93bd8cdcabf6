"""Child side: which attributes of torch, builtins, the grader and the course's checkers were
replaced, and put them back.

``snapshot(namespaces())`` is taken once in the warm process, before any fork: every
watched module and class with its keys and values, what the watched functions run
(``functions``) and what the namespaces' containers hold (``contents``). ``restore(before)``
runs in a child after learner code: every entry that no longer holds the same object is
reported and put back, so the rest of the child (the result channel) works with the real
objects again.

Reading an object in a forked child bumps its reference count, which copies its memory
page (copy-on-write): comparing ~6000 attributes one by one costs a child 10-30 ms. So
where CPython keeps a mutation counter in each dict (``ma_version_tag``; found to work by
a probe at import, else not used), a namespace whose dict counter has not moved is
skipped without touching any of its objects. The counter is read through ``ctypes``
references bound here at import; learner code cannot reach ``ctypes`` (``audit``).
"""

from __future__ import annotations

import builtins
import ctypes
import gc
import itertools
import operator
import sys
import types
from typing import Any, NamedTuple

from . import contents as _contents
from . import functions as _functions

WATCHED_MODULES = (
    "builtins",
    "json",
    "math",
    "copy",
    "traceback",
    "torch",
    "torch._tensor",
    "torch.functional",
    "torch.overrides",
    "torch.random",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.parameter",
    "torch.nn.modules.module",
    "torch.nn.modules.linear",
    "torch.nn.modules.container",
    "torch.nn.modules.activation",
    "torch.autograd",
    "torch.autograd.function",
    "torch.autograd.graph",
    "torch.autograd.grad_mode",
    "torch.autograd.variable",
    "torch.optim",
    "torch.optim.optimizer",
    "torch.optim.sgd",
    "torch.optim.adam",
    "torch.optim.adamw",
    "torch.utils.hooks",
    "torch.utils._foreach_utils",
)
SCALARS = (int, float, bool, str, type(None))
_MISSING = object()  # no such key
IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: such a class cannot be patched
VERSION_OFFSET = 24  # PyDictObject: refcount, type, ma_used, then ma_version_tag

# Modules whose functions are the judge's own (the checkers are the course's, named so).
JUDGE_PREFIXES = ("graders.", "graders_course_checkers")
# (namespace, its dict's mutation counter (a ctypes view) or None, the counter's value then,
# keys, values)
Entry = tuple[Any, Any, "int | None", tuple[str, ...], tuple[Any, ...]]


class Counted(NamedTuple):
    """The entries' dict counters side by side, read in one pass of C per check: of some
    3,000 namespaces (every module is watched) a job touches a handful, and a loop of
    bytecode over all of them cost a millisecond at each of a job's checkpoints."""

    counters: tuple[Any, ...]  # the ctypes views, of the entries that have one
    versions: list[int]  # each counter's value when the snapshot was taken
    where: tuple[int, ...]  # each counter's entry (an index into ``entries``)
    uncounted: tuple[int, ...]  # entries without a counter: compared at every check


class Snapshot(NamedTuple):
    """What ``snapshot`` took: the namespaces' entries, their counters, the functions, and
    the content of the containers they hold (``contents``)."""

    entries: tuple[Entry, ...]
    functions: _functions.Functions
    counted: Counted
    contents: _contents.Contents


_counter_value = ctypes._SimpleCData.__dict__["value"].__get__


def _counter_of(address: int) -> Any:
    """A ctypes view of the mutation counter of the dict at ``address`` (nothing is copied)."""
    return ctypes.c_uint64.from_address(address + VERSION_OFFSET)


def _counters_work() -> bool:
    """Does this interpreter keep a per-dict mutation counter where ``_counter_of`` reads?"""
    probe: dict[str, int] = {"a": 1}
    counter = _counter_of(id(probe))
    before = _counter_value(counter)
    probe["a"] = 2
    return bool(_counter_value(counter) != before)


_COUNTERS = _counters_work()


def namespaces(
    modules: Any = sys.modules,
    names: Any = WATCHED_MODULES,
    type: Any = type,
    vars: Any = vars,
    isinstance: Any = isinstance,
    flag: int = IMMUTABLE_TYPE,
) -> list[Any]:
    """The modules grading relies on, the mutable classes they define, and their entries
    in ``sys.modules`` (a plain dict of them stands for those entries)."""
    mods = [modules[name] for name in names if name in modules]
    mods += [m for name, m in list(modules.items()) if name.startswith(JUDGE_PREFIXES)]
    defined_here = {m.__name__ for m in mods}
    classes = {}
    for m in mods:
        for v in vars(m).values():
            if (
                isinstance(v, type)
                and not v.__flags__ & flag
                and v.__dict__.get("__module__") in defined_here
            ):
                classes[id(v)] = v
    # Every other module too, its dict only (a counter read each, as the others): copy's
    # ``__reduce__`` state sets attributes on any module it is handed
    # (``torch.nn.modules.batchnorm.F``), and no list of modules is the whole.
    watched = {id(m) for m in mods}
    others = [
        m for m in list(modules.values()) if type(m) is types.ModuleType and id(m) not in watched
    ]
    return [{m.__name__: m for m in mods}, *mods, *classes.values(), *others]


# What a module's code calls: in a module that is not watched whole, only such values are
# compared (its data, a lock ``threading`` remakes after a fork, a cache, is its own).
CODE_TYPES = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)


def _watched_whole(ns: Any) -> bool:
    """A namespace whose every value is compared: a class, or a module grading relies on."""
    return not isinstance(ns, types.ModuleType) or (
        ns.__name__ in WATCHED_MODULES or ns.__name__.startswith(JUDGE_PREFIXES)
    )


def snapshot(spaces: list[Any], contents: _contents.Contents | None = None) -> Snapshot:
    """Every namespace with its dict's counter and its value, its keys and values (in tuples),
    and what their containers hold (``contents``, when given: a record whose baseline each
    check moves on, which a process that lives on keeps from job to job).

    The counters' ctypes views are made here, once, in the warm process: a child reads
    each with one attribute access instead of building a view per read (406 namespaces,
    read after every call of learner code).
    """
    frozen = []
    for ns in spaces:
        items = ns if isinstance(ns, dict) else vars(ns)
        if not _watched_whole(ns):
            # type(), not isinstance: a value's own __class__ may warn or run code.
            items = {k: v for k, v in list(items.items()) if issubclass(type(v), CODE_TYPES)}
        counter = _counter_of(id(_real_dict(ns))) if _COUNTERS else None
        version = _counter_value(counter) if counter is not None else None
        frozen.append((ns, counter, version, tuple(items), tuple(items.values())))
    counted = [(i, entry[1], entry[2]) for i, entry in enumerate(frozen) if entry[2] is not None]
    return Snapshot(
        tuple(frozen),
        _functions.record(_judge_functions(spaces)),
        Counted(
            tuple(c for _, c, _ in counted),
            [v for _, _, v in counted],
            tuple(i for i, _, _ in counted),
            tuple(i for i, entry in enumerate(frozen) if entry[2] is None),
        ),
        contents or _contents.record(spaces, {id(_real_dict(ns)) for ns in spaces}),
    )


def _judge_functions(spaces: list[Any]) -> list[types.FunctionType]:
    """The Python functions the watched modules and classes hold (methods, static and class
    methods, properties' accessors included): torch's, the grader's and the checkers'
    (every other module's dict is compared, its functions are not)."""
    found: dict[int, types.FunctionType] = {}
    for ns in spaces:
        if isinstance(ns, dict) or not _watched_whole(ns):
            continue
        for value in list(vars(ns).values()):
            kind = type(value)
            inner = (
                (value.__func__,)
                if kind in (staticmethod, classmethod)
                else (value.fget, value.fset)
                if kind is property
                else (value,)
            )
            for f in inner:
                if type(f) is types.FunctionType:
                    found[id(f)] = f
    return list(found.values())


def _real_dict(ns: Any) -> dict[str, Any]:
    if isinstance(ns, dict):
        return sys.modules  # the one dict of modules
    if isinstance(ns, type):
        found: dict[str, Any] = gc.get_referents(ns.__dict__)[0]  # the dict behind the mappingproxy
        return found
    mine: dict[str, Any] = vars(ns)
    return mine


def restore(
    before: Snapshot,
    read: Any = _counter_value,
    dict: Any = dict,
    vars: Any = vars,
    isinstance: Any = isinstance,
    all: Any = all,
    map: Any = map,
    same: Any = operator.is_,
    len: Any = len,
    modules: Any = sys.modules,
    compress: Any = itertools.compress,
    ne: Any = operator.ne,
    sorted: Any = sorted,
) -> list[str]:
    """Attributes replaced or removed since ``before``, each put back; their names."""
    entries, counted = before.entries, before.counted
    now = list(map(read, counted.counters))
    # Only the namespaces whose dict was modified at all (and those without a counter).
    touched = [*counted.uncounted]
    if now != counted.versions:
        touched += compress(counted.where, map(ne, now, counted.versions))
    changed: list[str] = []
    for index in sorted(touched):
        ns, _counter, _version, keys, values = entries[index]
        if isinstance(ns, dict):
            changed += _changed_keys(modules, modules, keys, values)
            continue
        now = vars(ns)
        # The same keys with the same values, in the same order (new ones may follow).
        if (
            len(now) >= len(keys)
            and all(map(same, keys, now))
            and all(map(same, values, now.values()))
        ):
            continue
        changed += _changed_keys(ns, now, keys, values)
    return changed


def _changed_keys(
    ns: Any,
    now: Any,
    keys: tuple[str, ...],
    values: tuple[Any, ...],
    isinstance: Any = isinstance,
    scalars: Any = SCALARS,
    missing: Any = _MISSING,
    zip: Any = zip,
) -> list[str]:
    # A counter bump (RemovableHandle.next_id) is data changing, not a patch.
    changed = []
    for key, value in zip(keys, values):
        current = now.get(key, missing)
        if current is value or (isinstance(value, scalars) and isinstance(current, scalars)):
            continue
        changed.append(f"replaced {_label(ns)}.{key}")
        _put_back(ns, key, value)
    return changed


_BUILTINS = vars(builtins)


def added_builtins(keys: tuple[str, ...], now: Any = _BUILTINS, len: Any = len) -> list[str]:
    """Names in ``builtins`` that ``keys`` (its names when the job began) had not: each
    removed, and named. A new builtin is a name in every module, where one was missing."""
    if len(now) <= len(keys):
        return []
    added = [key for key in list(now) if key not in keys]
    for key in added:
        now.pop(key, None)
    return [f"added builtins.{key}" for key in added]


def _put_back(
    ns: Any,
    key: str,
    value: Any,
    setattr: Any = builtins.setattr,
    isinstance: Any = isinstance,
    dict: Any = dict,
) -> None:
    try:
        if isinstance(ns, dict):
            ns[key] = value
        else:
            setattr(ns, key, value)
    except (TypeError, AttributeError):
        pass  # an immutable type could not have been changed in the first place


def _label(ns: Any, isinstance: Any = isinstance, dict: Any = dict, str: Any = str) -> str:
    if isinstance(ns, dict):
        return "sys.modules"
    return f"{str(getattr(ns, '__qualname__', None) or getattr(ns, '__name__', '?'))}"
