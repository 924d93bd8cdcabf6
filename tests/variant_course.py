"""The small course with a parameterised exercise, for the tests of per-learner variants.

    ps1  clone-basics (no parameters) + scaled-grad (params: scale 2..9, n in 2, 3, 4)

``course.yml`` bounds every exercise to 4 variants. ``two_learners`` finds two learner ids
whose variants of ``scaled-grad`` (or of the exercises named) differ in every parameter, so
that every question whose answer depends on them has a different expected answer.

``code_variant_course`` adds ps3: the bundled code exercises with parameters, in English.

    ps3  safe-sgd-step (weight decay, shape) + straight-through (rounding op, shape)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml
from small_course import REPO, _english, small_course, text

from graders.course.load import load_course
from graders.course.loaded import LoadedCourse
from graders.course.variants import learner_variant
from graders.kinds.base import Context
from graders.workspace import Workspace

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
def open_variant_course(root: Path) -> Iterator[Workspace]:
    """The course opened with the in-process runner."""
    from graders.sandbox import InProcessRunner

    loaded = load_course(variant_course(root) / "course.yml")
    runner = InProcessRunner()
    try:
        yield Workspace(
            loaded, Context(loaded.course, loaded.root, runner, root / ".graders-cache")
        )
    finally:
        runner.close()


def two_learners(loaded: LoadedCourse, *exercises: str) -> tuple[str, str]:
    """Two learner ids whose variants of ``exercises`` (default: scaled-grad) differ in
    every parameter."""
    found = [loaded.exercises[e] for e in exercises or ("scaled-grad",)]
    names = [f"learner{i}" for i in range(200)]

    def values(name: str) -> list[dict[str, object]]:
        mine = [learner_variant(ex, loaded.course, name) for ex in found]
        return [dict(v.values) for v in mine if v is not None]

    chosen = {name: values(name) for name in names}
    for first in names:
        for second in names:
            pairs = zip(chosen[first], chosen[second], strict=True)
            if all(all(one[p] != two[p] for p in one) for one, two in pairs):
                return first, second
    raise AssertionError("no two learners differ in every parameter")


CODE_EXERCISES = ("safe-sgd-step", "straight-through")
PS3 = """  - id: ps3
    title: code with parameters
    due: "2036-10-19T23:59:00+00:00"
    exercises: [safe-sgd-step, straight-through]
"""


def code_variant_course(root: Path) -> Path:
    """The variant course with ps3: the bundled code exercises with parameters (English)."""
    files = {"course.yml": COURSE.replace("assignments:\n", "assignments:\n" + PS3)}
    for exercise in CODE_EXERCISES:
        bundled = yaml.safe_load((REPO / "exercises" / f"{exercise}.yml").read_text("utf-8"))
        files[f"exercises/{exercise}.yml"] = yaml.safe_dump(_english(bundled), sort_keys=False)
        files[f"solutions/{exercise}.py"] = (REPO / "solutions" / f"{exercise}.py").read_text()
    return variant_course(root, files)
