"""Child side: what the watched functions run (code, defaults, keyword defaults, the contents
of their closures), compared in raw memory after learner code and put back.

Replacing a function in its module is one way to change what the judge runs (``snapshot``
sees it); changing the function object itself is another, and library code can do it on
learner code's behalf where no rewriting of learner source sees it
(``functools.update_wrapper(f, g, assigned=("__code__",))``, ``copy``'s ``__reduce__``
state). So the snapshot keeps, for every Python function of the watched modules and
classes (torch's, the grader's, the checkers'), what it runs; ``changed_functions``
reports and puts back each one that changed (about 2,000 functions), once, after the last
learner code. It reads the raw memory of the functions' pointer fields and of their
closure cells (the few hundred page spans that hold them, through ``ctypes`` arrays made
in the warm process), so no function, code object or cell of the warm process is touched:
touching 2,000 code objects would copy their pages (huge pages in the warm server) in every
child, about 70 ms a job; this takes about a millisecond.
"""

from __future__ import annotations

import array
import ctypes
import operator
import types
from typing import Any, NamedTuple

_MISSING = object()  # an empty closure cell


class Functions(NamedTuple):
    """What the watched functions run, as objects (to put back) and as raw memory (to compare)."""

    functions: tuple[Any, ...]
    objects: tuple[tuple[Any, Any, Any, Any], ...]  # code, defaults, kwdefaults, closure
    contents: tuple[tuple[Any, ...], ...]  # each closure cell's contents
    # The memory read: each function's code..closure fields and each closure cell's
    # reference (``fields``: (owner, address, size), in address order), read as the spans
    # of memory within a page that hold them (``spans``: ctypes arrays made in the warm
    # process, read with ``bytes()``, a few hundred reads instead of thousands, raising no
    # audit event) and cut out of them (``cuts``: span, offset, size per field, end to end,
    # in an array: a child reads it without touching an object).
    fields: tuple[tuple[int, int, int], ...]
    spans: tuple[Any, ...] | None  # None: this interpreter's layout is unknown, no raw reads
    cuts: Any  # array("Q")
    memory: bytes  # the fields' bytes, end to end, then


# PyFunctionObject (CPython 3.11): the object head, then globals, builtins, name, qualname,
# code, defaults, kwdefaults, closure (checked by a probe at import); PyCellObject: the
# head, then its reference.
FUNCTION_FIELDS_OFFSET, FIELDS_BYTES = 48, 32
# The object head's type pointer: a function whose type was swapped for a class of the
# learner's (raw memory) runs that class's ``__call__``; compared as the fields are.
TYPE_OFFSET, TYPE_BYTES = 8, 8
CELL_REF_OFFSET, CELL_BYTES = 16, 8
PAGE_BITS = 12  # a span read at once stays within one page of memory (mapped if one field is)


def record(functions: list[types.FunctionType]) -> Functions:
    """What ``functions`` run, as objects and as the raw memory of their fields."""
    objects = tuple(
        (f.__code__, f.__defaults__, f.__kwdefaults__, f.__closure__) for f in functions
    )
    contents = tuple(_cells(f.__closure__) for f in functions)
    if not _RAW_READS_WORK:
        return Functions(tuple(functions), objects, contents, (), None, array.array("Q"), b"")
    fields = sorted(
        [(i, id(f) + FUNCTION_FIELDS_OFFSET, FIELDS_BYTES) for i, f in enumerate(functions)]
        + [(i, id(f) + TYPE_OFFSET, TYPE_BYTES) for i, f in enumerate(functions)]
        + [
            (i, id(cell) + CELL_REF_OFFSET, CELL_BYTES)
            for i, f in enumerate(functions)
            for cell in f.__closure__ or ()
        ],
        key=lambda field: field[1],
    )
    starts: list[int] = []
    ends: list[int] = []
    cuts: list[int] = []
    for _owner, address, size in fields:
        if not starts or address >> PAGE_BITS != starts[-1] >> PAGE_BITS:
            starts.append(address)  # a new page: the span ends within it (or in the object)
            ends.append(address + size)
        ends[-1] = max(ends[-1], address + size)
        cuts += (len(starts) - 1, address - starts[-1], size)
    found = Functions(
        tuple(functions),
        objects,
        contents,
        tuple(fields),
        tuple(
            (ctypes.c_char * (end - start)).from_address(start)
            for start, end in zip(starts, ends, strict=True)
        ),
        array.array("Q", cuts),
        b"",
    )
    return found._replace(memory=_read(found))


def _read(
    fs: Functions,
    join: Any = b"".join,
    copy: Any = bytes,
    list: Any = list,
    map: Any = map,
    range: Any = range,
    len: Any = len,
) -> bytes:
    """The watched fields' bytes, end to end (no object at those addresses is touched)."""
    spans = list(map(copy, fs.spans))
    c = fs.cuts
    read: bytes = join([spans[c[k]][c[k + 1] : c[k + 1] + c[k + 2]] for k in range(0, len(c), 3)])
    return read


def _raw_reads_work() -> bool:
    """Does this interpreter lay out functions and cells where ``_functions`` reads?"""
    x = object()

    def probe(a: int = 1, *, b: int = 2) -> object:
        return x

    cells = probe.__closure__ or ()
    expected = [id(probe.__code__), id(probe.__defaults__), id(probe.__kwdefaults__), id(cells)]
    fields = ctypes.string_at(id(probe) + FUNCTION_FIELDS_OFFSET, FIELDS_BYTES)
    cell = ctypes.string_at(id(cells[0]) + CELL_REF_OFFSET, CELL_BYTES)
    kind = ctypes.string_at(id(probe) + TYPE_OFFSET, TYPE_BYTES)
    return (
        list(array.array("Q", fields)) == expected
        and array.array("Q", cell)[0] == id(x)
        and array.array("Q", kind)[0] == id(types.FunctionType)
    )


_RAW_READS_WORK = _raw_reads_work()


def _cells(closure: Any) -> tuple[Any, ...]:
    contents = []
    for cell in closure or ():
        try:
            contents.append(cell.cell_contents)
        except ValueError:  # an empty cell (a name not bound yet)
            contents.append(_MISSING)
    return tuple(contents)


def changed_functions(
    fs: Functions,
    read: Any = _read,
    cells: Any = _cells,
    same: Any = operator.is_,
    all: Any = all,
    map: Any = map,
) -> list[str]:
    """The watched functions whose code, defaults or closure changed since ``before``, each
    put back; their names. Reads only the functions' and cells' own memory (see module)."""
    if fs.spans is not None:
        now = read(fs)
        if now == fs.memory:
            return []
        which, at = set(), 0
        for owner, _address, size in fs.fields:
            if now[at : at + size] != fs.memory[at : at + size]:
                which.add(owner)
            at += size
    else:
        which = {
            i
            for i, f in enumerate(fs.functions)
            if not (
                type(f) is types.FunctionType
                and f.__code__ is fs.objects[i][0]
                and f.__defaults__ is fs.objects[i][1]
                and f.__kwdefaults__ is fs.objects[i][2]
                and f.__closure__ is fs.objects[i][3]
                and all(map(same, cells(fs.objects[i][3]), fs.contents[i]))
            )
        }
    changed = []
    for i in sorted(which):
        # Put back first: a function's swapped type would answer its name with its own code.
        _put_back_function(fs.functions[i], fs.objects[i], fs.contents[i])
        changed.append(f"changed the function {fs.functions[i].__qualname__}")
    return changed


def _put_back_function(f: Any, objects: tuple[Any, ...], contents: tuple[Any, ...]) -> None:
    code, defaults, kwdefaults, closure = objects
    if type(f) is not types.FunctionType:  # its type pointer was swapped: written back
        ctypes.c_void_p.from_address(id(f) + TYPE_OFFSET).value = id(types.FunctionType)
    try:
        f.__code__, f.__defaults__, f.__kwdefaults__ = code, defaults, kwdefaults
        for cell, value in zip(closure or (), contents, strict=True):
            if value is not _MISSING:
                cell.cell_contents = value
    except (TypeError, ValueError):
        pass  # a code of another closure size cannot be put back: it was reported
