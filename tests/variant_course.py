"""The small course with a parameterised exercise, for the tests of per-learner variants.

    ps1  clone-basics (no parameters) + scaled-grad (params: scale 2..9, n in 2, 3, 4)

``course.yml`` bounds every exercise to 4 variants. ``two_learners`` finds two learner ids
whose variants of ``scaled-grad`` differ in both parameters, so that every question
whose answer depends on them has a different expected answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from small_course import small_course, text

from graders.course.load import LoadedCourse, load_course
from graders.course.variants import learner_variant
from graders.kinds.base import Context
from graders.session import Session

SCALED = """\
id: scaled-grad
title: "The gradient of a clone scaled by {{ scale }}"
section: "§1a"
kind: predict
params:
  scale: {range: [2, 9]}
  n: [2, 3, 4]
setup: |
  import torch
  a = torch.ones({{ n }}, requires_grad=True)
  b = a.clone() * {{ scale }}
  b.sum().backward()
questions:
  - id: grad
    prompt: "`a = torch.ones({{ n }}, requires_grad=True)`, `b = a.clone() * {{ scale }}`. What is `a.grad`?"
    expr: a.grad
    explain: "Each element of `b` is {{ scale }} times an element of `a`."
    misconceptions:
      - answer: "tensor({{ [1.0] * n }})"
        name: scale-forgotten
        explain: "The gradient of `{{ scale }} * x` is {{ scale }}, not 1."
  - id: shape
    prompt: "What is `b.shape`?"
    expr: b.shape
    explain: "A clone has its source's shape: {{ n }} elements."
  - id: total
    prompt: "What is `a.grad.sum()`?"
    expr: a.grad.sum()
    explain: "{{ n }} elements, each {{ scale }}."
"""
COURSE = (
    text("course.yml").replace(
        "exercises: [clone-basics, {id: detach-basics, points: 4}]",
        "exercises: [clone-basics, scaled-grad]",
    )
    + "variants: {count: 4}\n"
)
FILES = {"course.yml": COURSE, "exercises/scaled-grad.yml": SCALED}


def variant_course(root: Path, files: dict[str, str] | None = None) -> Path:
    """The course folder, with ``files`` replaced or added."""
    return small_course(root, {**FILES, **(files or {})})


@contextmanager
def open_variant_course(root: Path) -> Iterator[Session]:
    """The course opened with the in-process runner."""
    from graders.sandbox import InProcessRunner

    loaded = load_course(variant_course(root) / "course.yml")
    runner = InProcessRunner()
    try:
        yield Session(loaded, Context(loaded.course, loaded.root, runner, root / ".graders-cache"))
    finally:
        runner.close()


def two_learners(loaded: LoadedCourse, exercise: str = "scaled-grad") -> tuple[str, str]:
    """Two learner ids whose variants of ``exercise`` differ in every parameter."""
    ex = loaded.exercises[exercise]
    names = [f"learner{i}" for i in range(200)]
    chosen = {name: learner_variant(ex, loaded.course, name) for name in names}
    for first in names:
        for second in names:
            one, two = chosen[first], chosen[second]
            assert one is not None and two is not None
            if all(one.values[p] != two.values[p] for p in one.values):
                return first, second
    raise AssertionError("no two learners differ in every parameter")
