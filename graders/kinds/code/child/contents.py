"""Child side: what the mutable containers of every module hold, compared at each checkpoint.

Library code keeps tables it consults for any caller: ``copyreg.dispatch_table`` (what
``copy`` and pickling do with a type), ``torch.utils._pytree``'s node registry (what
``torch.func`` flattens), a ``functools.singledispatch`` registry (in its function's
closure), an abstract base class's registry (what ``isinstance`` answers, kept in C).
Learner code can fill one without writing an attribute, so ``snapshot``'s comparison of
namespaces does not see it. So the warm process records, once, every ``dict``, ``list``
and ``set`` one step from a module's globals, a class's dict or a module-level function's
closure (some 3,300 containers; not the interpreter's own names such as ``__all__``, nor
the guard's bookkeeping), and every abstract base class found there; each checkpoint
compares them by content, in-place edits included.

Cheaply: a dict's content is its mutation counter (``ma_version_tag``, as ``snapshot``
reads for namespaces); a list's is its length, item array and the item pointers in it; a
set's its fill, size, mask, table and the keys in the table. All of it is gathered from raw
memory in one ``numpy.take`` over a view of the address space (no object is touched, no
page copied): some 43,000 words in about 0.1 ms (3 ms at a child's first check, which
reads them cold). An abstract base class registers through one C function that bumps a
global token (``_abc.get_cache_token``): the registries are read only when it moved.

What changed is then judged by what the new entry *binds*, not by which table it is in.
Honest programs change such tables all the time by merely using a library (``re``'s cache,
``warnings.filters``, logging's handler list, torch's lazily filled registries): that is
data made on their behalf, and it is left as it is (each check starts from what the last
one accepted). A registration is different: it ties something of the grader's (a type, a
function, a name that existed before the learner's code ran) to behaviour the learner
chose. A changed entry is evidence, and is put back, when

- a dict's key is not the learner's own (``ownership``) and either the key is a type (a
  type's entry in a dispatch table, a pytree registry, a ``singledispatch`` registry) or
  the entry holds learner code (a function, method, partial or callable instance whose
  code is the learner's, or the learner's class; directly or as an item of a tuple, such
  as pytree's ``NodeDef``); a type's entry removed is evidence too;
- a list or set gains an item that holds learner code (a learner's class in a warnings
  filter is data: ``warnings.filterwarnings(category=MyWarning)`` is honest);
- an abstract base class that existed before gains a class that existed before
  (``collections.abc.Mapping.register(torch.Tensor)``).

What the learner registers for its own types (``copyreg.pickle(MyClass, ...)``, a pytree
node or an ABC registration of its own class) acts on its own objects only, as a method of
the class would: it is left. Nothing here calls a method of a learner object: keys are
matched by identity, items read through C slots (``audit.from_learner``).
"""

from __future__ import annotations

import ctypes
import gc
import operator
import types
from collections import OrderedDict, defaultdict
from typing import Any, NamedTuple

from .audit import from_learner
from .ownership import learners, made_here

try:
    import _abc  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - CPython has it; without it no ABC is compared
    _abc = None
try:
    import numpy

    _take = numpy.ndarray.take  # a method of a C type: not replaceable from Python
    _tobytes = numpy.ndarray.tobytes
except ImportError:  # pragma: no cover - without numpy, every container is compared
    numpy = None  # type: ignore[assignment]

# The guard's own bookkeeping (the learner's code objects, the grader's threads, the
# evidence so far) changes at every job by design and no measurement reads it: not a table.
GUARD = __name__.rpartition(".")[0] + "."
DICTS = (dict, OrderedDict, defaultdict)
CONTAINERS = (*DICTS, list, set)
_MISSING = object()
_mro = type.__dict__["__mro__"].__get__
_qualname = type.__dict__["__qualname__"].__get__
_tuple_items = tuple.__iter__  # tuple's own iterator, whatever a subclass defines
_deref = __import__("weakref").ref.__call__

# Raw layout (CPython 3.11, 64 bits; checked by ``_layout_works`` at import): a dict's
# mutation counter; a list's size, item array and allocation; a set's fill, size, mask and
# table (of key and hash, two words an entry).
DICT_WORDS, LIST_WORDS, SET_WORDS = (24,), (16, 24, 32), (16, 24, 32, 40)
BASE = 4096  # the view starts at the first page a process can map


class Words:
    """Which words of memory stand for which container, and what they held at the last check.

    ``head``: the words that change whenever a container's size or storage does (always
    readable: the containers are kept alive), fixed once in the warm process; ``body``: a
    list's items and a set's table, found from the heads as they are now (numpy, no loop),
    read only when no head changed (a moved array is freed memory)."""

    def __init__(self, containers: tuple[Any, ...]) -> None:
        head: list[int] = []
        head_owner: list[int] = []
        # Per list or set: its owner, and where its start and its count are among the heads.
        owner: list[int] = []
        start_at: list[int] = []
        count_at: list[int] = []
        sets: list[bool] = []
        for i, c in enumerate(containers):
            kind = type(c)
            words = LIST_WORDS if kind is list else SET_WORDS if kind is set else DICT_WORDS
            if kind is list or kind is set:
                owner.append(i)
                start_at.append(len(head) + (1 if kind is list else 3))
                count_at.append(len(head) + (0 if kind is list else 2))
                sets.append(kind is set)
            head += [(id(c) + w - BASE) >> 3 for w in words]
            head_owner += [i] * len(words)
        self.head = numpy.array(head, dtype=numpy.intp)
        self.head_owner = numpy.array(head_owner, dtype=numpy.intp)
        self.owner = numpy.array(owner, dtype=numpy.intp)
        self.start_at = numpy.array(start_at, dtype=numpy.intp)
        self.count_at = numpy.array(count_at, dtype=numpy.intp)
        self.sets = numpy.array(sets, dtype=bool)
        self.head_bytes = b""
        self.body = self.body_owner = self.owner
        self.body_bytes = b""
        self.moved_on()

    def moved_on(self) -> None:
        """What the containers hold now is the baseline (their arrays may have moved)."""
        heads = _take(_VIEW, self.head)
        starts = heads[self.start_at].astype(numpy.intp)
        counts = heads[self.count_at].astype(numpy.intp)
        # A set's table holds mask + 1 entries of two words, its key and the key's hash:
        # the keys are read (every other word), a hash changes only with its key.
        counts[self.sets] += 1
        step = numpy.where(self.sets, 2, 1)
        firsts = numpy.cumsum(counts) - counts
        steps = numpy.repeat(step, counts)
        self.body = numpy.repeat((starts - BASE) >> 3, counts) + steps * (
            numpy.arange(int(counts.sum()), dtype=numpy.intp) - numpy.repeat(firsts, counts)
        )
        self.body_owner = numpy.repeat(self.owner, counts)
        self.head_bytes = _tobytes(heads)
        self.body_bytes = _tobytes(_take(_VIEW, self.body))


class Contents(NamedTuple):
    """What ``record`` took; its lists are the child's own baseline, moved on at each check."""

    containers: tuple[Any, ...]
    labels: tuple[str, ...]
    kept: list[Any]  # each container's content at the last check
    words: list[Words | None]  # one item; None: no raw reads here, every container compared
    abcs: tuple[type, ...]
    registries: list[tuple[type, ...]]  # each ABC's registered classes at the last check
    token: list[int]  # the ABC token at the last check


def record(spaces: list[Any], skip: set[int]) -> Contents:
    """The containers one step from ``spaces`` (module namespaces, classes, and a plain dict
    standing for ``sys.modules``), with the closures of their functions, and the ABCs
    found there; ``skip``: ids of dicts compared elsewhere (the namespaces themselves)."""
    found: dict[int, tuple[Any, str]] = {}
    abcs: dict[int, type] = {}
    function = types.FunctionType
    for ns in _with_classes(spaces):
        where = _name(ns)
        if where.startswith(GUARD):
            continue
        # Some 190,000 entries, once, in the warm process: the cheap tests first.
        for key, value in list(vars(ns).items()):
            kind = type(value)
            if kind is function or kind in CONTAINERS:
                if type(key) is str and key.startswith("__") and key.endswith("__"):
                    # The interpreter's own names (``__all__``, ``__path__``, ``__slots__``,
                    # ``__annotations__``): a module's or class's description, not a table
                    # library code keeps for its callers (a third of the containers).
                    continue
                if kind is not function:
                    if id(value) not in skip:
                        found.setdefault(id(value), (value, f"{where}.{key}"))
                elif value.__closure__ is not None or value.__dict__:
                    for inside in _held_by(value):
                        if id(inside) not in skip:
                            found.setdefault(id(inside), (inside, f"{where}.{key}"))
            elif _abc is not None and issubclass(kind, type) and "_abc_impl" in vars(value):
                abcs[id(value)] = value
    containers = tuple(c for c, _ in found.values())
    return Contents(
        containers,
        tuple(label for _, label in found.values()),
        [_content(c) for c in containers],
        [Words(containers) if _RAW else None],
        tuple(abcs.values()),
        [_registered(a) for a in abcs.values()],
        [_token()],
    )


def _with_classes(spaces: list[Any]) -> list[Any]:
    """The modules and classes of ``spaces``, with the classes every module defines (a
    table may be a class attribute: ``ForkingPickler._extra_reducers``)."""
    found = {id(ns): ns for ns in spaces if type(ns) is not dict}
    for ns in list(found.values()):
        if type(ns) is not types.ModuleType:
            continue
        for value in list(vars(ns).values()):
            if type in _mro(type(value)) and value.__dict__.get("__module__") == ns.__name__:
                found.setdefault(id(value), value)
    return list(found.values())


def _held_by(f: Any) -> list[Any]:
    """The containers a function keeps for its callers: in its closure, and behind a mapping
    proxy in its ``__dict__`` (``singledispatch``'s ``registry``, the dict its ``register``
    writes). Other data in a function's ``__dict__`` (networkx keeps thousands of sets
    there) is its own description, not a table consulted for others: not compared."""
    found = [value for value in map(_cell, f.__closure__ or ()) if type(value) in CONTAINERS]
    for value in vars(f).values():
        if type(value) is types.MappingProxyType:
            inside = gc.get_referents(value)[0]
            if type(inside) in CONTAINERS:
                found.append(inside)
    return found


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return None


def _name(ns: Any) -> str:
    if type(ns) is types.ModuleType:
        return str(ns.__name__)
    return f"{ns.__dict__.get('__module__', '?')}.{_qualname(ns)}"


def _content(c: Any) -> Any:
    """A container's content, copied without calling anything of its items' (a dict's items
    read from its own storage, a list's or set's items in a tuple: nothing hashed)."""
    if type(c) is list or type(c) is set:
        return tuple(c)
    return list(dict.items(c))


def _registered(a: Any) -> tuple[type, ...]:
    refs = _abc._get_dump(a)[0]
    return tuple(c for c in map(_deref, refs) if c is not None)


def _token() -> int:
    return int(_abc.get_cache_token()) if _abc is not None else 0


def changed(before: Contents) -> list[str]:
    """At a checkpoint: registrations since the last check, each put back and named; every
    other change accepted as the new baseline."""
    evidence: list[str] = []
    words = before.words[0]
    if words is None:
        which = list(range(len(before.containers)))
    else:
        which = _moved(words.head, words.head_owner, words.head_bytes)
        # The items of the others (whose arrays stayed where they were) in any case.
        which += _moved(words.body, words.body_owner, words.body_bytes, set(which))
    for i in sorted(set(which)):
        evidence += _judge(before, i)
    if which and words is not None:
        if any(type(before.containers[i]) in (list, set) for i in which):
            words.moved_on()  # an array may have moved: find the items again
        else:  # only dicts: their counters are the whole of it
            words.head_bytes = _tobytes(_take(_VIEW, words.head))
    if _abc is not None and _token() != before.token[0]:
        evidence += _judge_abcs(before)
        before.token[0] = _token()
    return evidence


def _moved(index: Any, owner: Any, then: bytes, skip: set[int] | None = None) -> list[int]:
    """The owners of the words at ``index`` that differ from ``then``; ``skip``: owners
    whose words are not read (their arrays moved: freed memory)."""
    was = None
    if skip:
        keep = ~numpy.isin(owner, list(skip))
        index, owner = index[keep], owner[keep]
        was = numpy.frombuffer(then, dtype=numpy.uint64)[keep]
    now = _take(_VIEW, index)
    if was is None:
        if _tobytes(now) == then:
            return []
        was = numpy.frombuffer(then, dtype=numpy.uint64)
    return sorted(set(owner[now != was].tolist()) - (skip or set()))


def _judge(before: Contents, i: int) -> list[str]:
    c, label, kept = before.containers[i], before.labels[i], before.kept[i]
    kind = type(c)
    if kind is list or kind is set:
        found = _items_added(c, kept, label)
    else:
        found = _entries_changed(c, kept, label)
    before.kept[i] = _content(c)
    return found


def _items_added(c: Any, kept: Any, label: str) -> list[str]:
    old = set(map(id, kept))
    added = [x for x in tuple(c) if id(x) not in old]
    bad = [x for x in added if _holds_code(x)]
    if not bad:
        return []
    if type(c) is list:  # as it was (an item replaced in place comes back), then the rest
        drop = set(map(id, bad))
        c[:] = [*kept, *(x for x in added if id(x) not in drop)]
    else:  # as it was, the grader's items only: adding a learner's would run its __hash__
        c.clear()
        c.update([x for x in kept if not learners(x)])
    return [f"added its own code to {label}"]


def _entries_changed(c: Any, kept: list[tuple[Any, Any]], label: str) -> list[str]:
    old = {id(k): (k, v) for k, v in kept}
    bad: list[tuple[Any, Any]] = []  # (key, value to put back or _MISSING)
    now_keys = set()
    for k, v in list(dict.items(c)):
        now_keys.add(id(k))
        was = old.get(id(k))
        if was is not None and was[0] is k and was[1] is v:
            continue
        if _registers(k, v):
            bad.append((k, _MISSING if was is None or was[0] is not k else was[1]))
    for k, v in kept:
        if id(k) not in now_keys and _is_type(k) and not learners(k):
            bad.append((k, v))  # a type's entry removed
    for k, v in bad:
        if v is _MISSING:
            c.pop(k, None)
        else:
            c[k] = v
    return [f"registered {label}[{_key_name(k)}]" for k, _ in bad]


def _registers(key: Any, value: Any) -> bool:
    """Does the entry ``key: value`` tie something of the grader's to the learner's choice?"""
    if learners(key):
        return False  # the learner's own type or object: its own business
    return _is_type(key) or _holds_code(value, classes=True) or _holds_code(key, classes=True)


def _is_type(x: Any) -> bool:
    return type in _mro(type(x))


def _holds_code(x: Any, classes: bool = False) -> bool:
    """Is ``x`` learner code (or the learner's class, with ``classes``), or a tuple holding
    one (one level: a pytree ``NodeDef``, a warnings filter)?"""
    if _code(x, classes):
        return True
    if tuple in _mro(type(x)):
        return any(_code(item, classes) for item in _tuple_items(x))
    return False


def _code(x: Any, classes: bool) -> bool:
    if from_learner(x):
        return True
    return classes and _is_type(x) and made_here(x) and _learners_class(x)


# The module name learner code runs under (``namespace``): a class it defines, or asks a
# library to make for it (``namedtuple``, ``make_dataclass``, ``Enum('E', ...)`` take the
# caller's), says so in its ``__module__``.
LEARNERS_MODULE = "__main__"


def _learners_class(cls: Any) -> bool:
    """A class made during the job that is the learner's: written by learner code, or
    holding learner code. A class a library module first imported during the job defines
    (``encodings.cp437``'s codec classes, cached when a learner's program first names that
    codec) is that library's, as its functions are: registering it is not the learner's
    doing."""
    own = _class_dict(cls)
    if own.get("__module__") == LEARNERS_MODULE:
        return True
    for value in own.values():
        inner = getattr(value, "__func__", value) if type(value) in _WRAPPERS else value
        if from_learner(inner):
            return True
    return False


_class_dict = type.__dict__["__dict__"].__get__
_WRAPPERS = (staticmethod, classmethod)


def _key_name(k: Any) -> str:
    if _is_type(k):
        return f"{k.__dict__.get('__module__', '?')}.{_qualname(k)}"
    if type(k) is str:
        return repr(k[:60])
    return str(_qualname(type(k)))


def _judge_abcs(before: Contents) -> list[str]:
    evidence: list[str] = []
    for i, a in enumerate(before.abcs):
        now = _registered(a)
        old = set(map(id, before.registries[i]))
        bad = [c for c in now if id(c) not in old and not made_here(c)]
        if bad:
            evidence += [f"registered {_key_name(c)} with {_key_name(a)}" for c in bad]
            _put_back_abc(before, a, before.registries[i])
            now = _registered(a)
        before.registries[i] = now
    return evidence


def _put_back_abc(before: Contents, a: Any, members: tuple[type, ...]) -> None:
    """``a``'s registry as it was; every ABC's caches emptied (a parent's cache may hold the
    class that was registered). Caches fill again on use."""
    for other in before.abcs:
        _abc._reset_caches(other)
    _abc._reset_registry(a)
    for member in members:
        _abc._abc_register(a, member)


def _layout_works() -> bool:
    """Does this interpreter lay out dicts, lists and sets where ``Words`` reads them?"""
    if numpy is None:
        return False
    d, items, s = {"a": 1}, [object(), object()], {1, 2, 3}
    word = operator.attrgetter("value")
    read = ctypes.c_uint64.from_address
    before = word(read(id(d) + 24))
    d["a"] = 2
    list_ok = (
        word(read(id(items) + 16)) == 2
        and word(read(word(read(id(items) + 24)))) == id(items[0])
        and word(read(id(items) + 32)) >= 2
    )
    mask, table = word(read(id(s) + 32)), word(read(id(s) + 40))
    keys = [word(read(table + 16 * k)) for k in range(mask + 1)]
    set_ok = word(read(id(s) + 24)) == 3 and all(id(x) in keys for x in s)
    return bool(word(read(id(d) + 24)) != before and list_ok and set_ok)


_RAW = _layout_works()
# The whole address space as words (nothing is read until indexed: only the words of live
# containers are).
_WORDS: Any = ctypes.c_uint64 * (((1 << 47) - BASE) >> 3)
_VIEW: Any = numpy.frombuffer(_WORDS.from_address(BASE), numpy.uint64) if _RAW else None
