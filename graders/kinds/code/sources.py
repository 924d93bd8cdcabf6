"""A code exercise's course files in one variant: its reference solution and samples.

An exercise with ``params`` asks each learner for their own code (``freeze model.{{ part }}``),
so its reference solution and its samples are templates too, rendered with the variant's
values like its texts (Jinja2, sandboxed: ``course/templating.py``). An exercise without
``params`` reads them exactly as written (a ``{{`` in them is Python).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...course.params import combinations
from .model import CodeExercise


def variant_values(exercise: CodeExercise) -> dict[str, Any]:
    """The values a rendered variant was made with (one per parameter); {} without params."""
    return combinations(exercise.params)[0] if exercise.params else {}


def in_variant(exercise: CodeExercise, source: str) -> str:
    """``source`` (a solution's or a sample's) as the variant ``exercise`` asks it (Jinja
    errors propagate: ``validation`` reports them when the course is loaded)."""
    if not exercise.params:
        return source
    from ...course.templating import render

    return render(source, variant_values(exercise))


def read_source(exercise: CodeExercise, path: Path) -> str:
    """The file at ``path`` (a solution or a sample of ``exercise``) in its variant."""
    return in_variant(exercise, path.read_text(encoding="utf-8"))
