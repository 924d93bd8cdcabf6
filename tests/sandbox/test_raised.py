"""Grader code reads a learner's exception in one place (``sandbox/raised.py``), and no code
of the exception's runs there: not its class's metaclass, not its ``__str__``, not the
``__repr__`` of what it carries; a ``BaseException`` of the learner's making comes back as
data like any other."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from graders.checker.calls import LEARNER_FILE, call
from graders.sandbox.child import task_line
from graders.sandbox.protocol import encode_line
from graders.sandbox.raised import UNREADABLE, read_raised, type_name

RAN: list[str] = []


class Escapes(BaseException):
    """What learner code raises to climb past a handler for ``Exception``."""


class Meta(type):
    @property
    def __name__(cls) -> str:  # type: ignore[override]
        RAN.append("metaclass __name__")
        raise Escapes

    def __eq__(cls, other: object) -> bool:
        RAN.append("metaclass __eq__")
        raise Escapes

    __hash__ = type.__hash__


class Loud:
    def __repr__(self) -> str:
        RAN.append("__repr__")
        raise Escapes

    __str__ = __repr__


class Sneaky(str):
    def __str__(self) -> str:
        RAN.append("str subclass __str__")
        raise Escapes

    def __format__(self, spec: str) -> str:
        RAN.append("str subclass __format__")
        raise Escapes


def hostile() -> BaseException:
    class Odd(Escapes, metaclass=Meta):
        def __str__(self) -> str:
            RAN.append("__str__")
            raise Escapes

    return Odd("a plain message")


@pytest.fixture(autouse=True)
def nothing_ran() -> Any:
    RAN.clear()
    yield
    assert RAN == [], RAN


def test_a_hostile_class_is_named_by_its_slot_and_its_message_read_from_its_args() -> None:
    read = read_raised(hostile())
    assert read.name == "Odd"
    assert read.message == "a plain message"
    assert read.described() == "Odd: a plain message"


def test_args_that_are_not_plain_values_are_not_shown() -> None:
    assert read_raised(ValueError(Loud())).message == UNREADABLE
    assert read_raised(ValueError("a", 2)).message == "('a', 2)"
    assert read_raised(KeyError("missing")).described() == "KeyError: 'missing'"
    assert read_raised(RuntimeError()).described() == "RuntimeError"


def test_a_class_named_by_a_str_subclass_is_named_by_an_exact_str() -> None:
    class Renamed(Exception):
        pass

    Renamed.__name__ = Sneaky("Renamed")
    name = type_name(Renamed())
    assert name == "Renamed" and type(name) is str


def test_the_learners_line_is_read_from_the_traceback() -> None:
    code = compile("def f():\n    x = 1\n    raise ValueError('deep')\n", LEARNER_FILE, "exec")
    space: dict[str, Any] = {}
    exec(code, space)
    raised = call(space["f"]).raised
    assert raised is not None and (raised.cls, raised.message, raised.line) == (
        "ValueError",
        "deep",
        3,
    )


def test_a_task_that_raises_a_hostile_base_exception_gets_its_one_line() -> None:
    def task(payload: dict[str, Any]) -> dict[str, Any]:
        raise hostile()

    line = task_line(task, {}, lambda kind, value: encode_line({kind: value}), 1 << 20)
    assert line == b'{"error":"Odd: a plain message"}\n'


def test_sys_exit_with_a_learner_object_does_not_ask_it_anything() -> None:
    def task(payload: dict[str, Any]) -> dict[str, Any]:
        sys.exit(Loud())

    line = task_line(task, {}, lambda kind, value: encode_line({kind: value}), 1 << 20)
    assert line == b'{"error":"the code called sys.exit(...)"}\n'


def test_a_result_that_is_not_plain_data_is_refused_without_asking_it() -> None:
    def task(payload: dict[str, Any]) -> dict[str, Any]:
        return {"observations": {"x": Sneaky("forged")}}

    line = task_line(task, {}, lambda kind, value: encode_line({kind: value}), 1 << 20)
    assert (
        line
        == b'{"integrity":"the result is not plain JSON: Object of type Sneaky is not JSON serializable"}\n'
    )
