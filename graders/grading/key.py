"""The grading key: a hash of everything that decides a student's grade.

It covers the notebook's bytes, the submission time, and everything in the course and
the machine that decides a grade (exercise content and what each kind prepared, points,
due date, late policy, seed, limits, torch and graders versions). A student whose key is
unchanged since their saved grade is not graded again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

from .. import __version__
from ..i18n import SOURCE_LANGUAGE
from ..intake.text import cannot_read
from ..kinds.registry import kind_of
from ..notebook.read import MAX_NOTEBOOK_BYTES
from ..said import render
from ..submissions.found import Found
from .pipeline import PreparedAssignment
from .torch_side import torch_version

HASH_CHUNK = 1 << 20


def course_key(prep: PreparedAssignment) -> str:
    """A hash of everything in the course and the machine that decides a grade.

    Each exercise counts with its content and with what grading compares against (its
    truths, or its reference solution's observations): fixing an exercise, its solution
    or its checker, or changing torch, grades its submissions again.
    """
    course = prep.ctx.course
    variants = {  # written only when set: a course without variants keeps its grading keys
        "variants": [
            [ex.loaded.exercise.id, [kind_of(ex.loaded).fingerprint(v) for v in ex.variants]]
            for ex in prep.exercises
            if ex.variants
        ]
    }
    blob = json.dumps(
        {
            **(variants if variants["variants"] else {}),
            "assignment": prep.assignment.model_dump(mode="json"),
            "seed": course.seed,
            "limits": course.limits.model_dump(mode="json"),  # a longer timeout can change a result
            "exercises": [
                [
                    ex.loaded.exercise.id,
                    ex.loaded.exercise.content_hash(),
                    kind_of(ex.loaded).fingerprint(ex.prepared),
                ]
                for ex in prep.exercises
            ],
            "torch": torch_version(),
            "graders": __version__,
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def keyed_submission(found: Found, course_hash: str) -> tuple[Found, str]:
    """The submission and its grading key (an unreadable notebook becomes an error entry)."""
    digest = hashlib.sha256(course_hash.encode())
    digest.update(b"\0" + (found.submitted_at.isoformat() if found.submitted_at else "").encode())
    if found.path is not None:
        try:
            digest.update(b"\0notebook\0" + _file_hash(found.path))
        except OSError as exc:
            found = replace(found, path=None, error=cannot_read(found.source, exc))
    if found.error is not None:
        # The reason in the language of the message ids: the key must not vary with a reader.
        digest.update(b"\0error\0" + render(found.error, SOURCE_LANGUAGE).encode())
    return found, digest.hexdigest()


def _file_hash(path: Path) -> bytes:
    digest = hashlib.sha256()
    stat = path.stat()
    if stat.st_size > MAX_NOTEBOOK_BYTES:
        # Refused unread by the reader: its size and time identify it without reading gigabytes.
        digest.update(f"too large:{stat.st_size}:{stat.st_mtime_ns}".encode())
        return digest.digest()
    with path.open("rb") as handle:
        while chunk := handle.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.digest()
