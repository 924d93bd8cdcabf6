"""Preparing exercises: each kind's state computed once, in parallel, each in its own child.

Grading owns the truth cache (``truth_cache``): each kind is handed the course's as a
``TruthStore``, keeps what it computes in it by the keys it chooses, and never knows where
it lives or when an entry is stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import Problem
from ..kinds.registry import capabilities, kind_of
from .truth_cache import TruthCache

if TYPE_CHECKING:
    from ..course.loaded import LoadedCourse
    from ..kinds.base import Context

MAX_PARALLEL = 4  # exercises prepared at once (each may hold a sandbox child)


def prepare_exercises(loaded: LoadedCourse, ids: Iterable[str], ctx: Context) -> dict[str, Any]:
    """Exercise id -> its kind's prepared state, for every exercise named in ``ids``."""
    unique = list(dict.fromkeys(ids))
    store = TruthCache.of(ctx)

    def prepare(exercise_id: str) -> Any:
        ex = loaded.exercises[exercise_id]
        return kind_of(ex).prepare(ex.exercise, ctx, store)

    with ThreadPoolExecutor(max_workers=MAX_PARALLEL) as pool:
        return dict(zip(unique, pool.map(prepare, unique), strict=True))


def prepare_variants(
    loaded: LoadedCourse, ids: Iterable[str], ctx: Context
) -> dict[str, tuple[Any, ...]]:
    """Exercise id -> the prepared state of each of its variants, in variant order (the base
    first); for an exercise without variants, its one state."""
    unique = list(dict.fromkeys(ids))
    store = TruthCache.of(ctx)

    def prepare(exercise_id: str) -> tuple[Any, ...]:
        ex = loaded.exercises[exercise_id]
        if not ex.variants:
            return (kind_of(ex).prepare(ex.exercise, ctx, store),)
        # Together: the variants of one exercise are independent steps of one warm child.
        return tuple(kind_of(ex).prepare_many([v.exercise for v in ex.variants], ctx, store))

    with ThreadPoolExecutor(max_workers=MAX_PARALLEL) as pool:
        return dict(zip(unique, pool.map(prepare, unique), strict=True))


def variant_problems(
    loaded: LoadedCourse, prepared: Mapping[str, tuple[Any, ...]]
) -> list[Problem]:
    """``preparation_problems`` of every variant, each naming the variant it is about."""
    problems: list[Problem] = []
    for exercise_id, states in prepared.items():
        ex = loaded.exercises[exercise_id]
        if not ex.variants:
            problems += kind_of(ex).problems(ex.exercise, states[0], ex.marks)
            continue
        seen: set[str] = set()
        for variant, state in zip(ex.variants, states, strict=True):
            for problem in kind_of(ex).problems(variant.exercise, state, ex.marks):
                if str(problem) not in seen:
                    seen.add(str(problem))
                    problems.append(
                        replace(problem, message=f"{problem.message} ({variant.label})")
                    )
    return problems


def preparation_problems(loaded: LoadedCourse, prepared: Mapping[str, Any]) -> list[Problem]:
    """Problems found by running the course through torch (for ``validate``)."""
    problems: list[Problem] = []
    for exercise_id, state in prepared.items():
        ex = loaded.exercises[exercise_id]
        problems += kind_of(ex).problems(ex.exercise, state, ex.marks)
    return problems


def self_test_problems(
    loaded: LoadedCourse, prepared: Mapping[str, tuple[Any, ...]], ctx: Context
) -> list[Problem]:
    """What the exercises' own samples say about their checkers, in every variant
    (``validate`` only; a kind without samples has nothing to say), run in parallel like
    preparing. ``prepared`` is each exercise's states, as ``prepare_variants`` gives them."""
    store = TruthCache.of(ctx)

    def self_test(exercise_id: str) -> list[Problem]:
        ex = loaded.exercises[exercise_id]
        tested = capabilities(kind_of(ex)).self_testing
        if tested is None:
            return []
        test = tested.self_test
        if not ex.variants:
            return list(test(ex.exercise, prepared[exercise_id][0], ctx, ex.marks, store))
        # A problem of several variants is reported once, naming each variant it is in.
        found: dict[str, tuple[Problem, list[str]]] = {}
        for variant, state in zip(ex.variants, prepared[exercise_id], strict=True):
            for problem in test(variant.exercise, state, ctx, ex.marks, store):
                found.setdefault(str(problem), (problem, []))[1].append(variant.label)
        return [
            replace(problem, message=f"{problem.message} ({'; '.join(labels)})")
            for problem, labels in found.values()
        ]

    with ThreadPoolExecutor(max_workers=MAX_PARALLEL) as pool:
        return [p for found in pool.map(self_test, list(prepared)) for p in found]
