"""Answers files: a submission written as YAML instead of a notebook.

    student: ada
    assignment: ps1
    submitted_at: 2026-10-05T20:00:00+02:00     # optional
    answers:
      clone-requires-grad/same-memory: "False"
    code:
      independent-copy: |
        def independent_copy(t): ...

Values under ``answers`` are answer literals; YAML scalars that are not strings
(``True``, ``5``) are taken as the literal the learner typed.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from .errors import SubmissionError
from .grade import PreparedAssignment, Submission, grade_all, ungradable
from .results import SubmissionResult

MAX_BYTES = 2 << 20


def read_answers_file(path: Path) -> Submission:
    """Read one answers file; raise ``SubmissionError`` saying what is wrong with it."""
    data = _load(path)
    student = data.get("student")
    if not isinstance(student, str) or not student.strip():
        raise SubmissionError(f"{path}: 'student' must be a non-empty string")
    answers = _string_map(data.get("answers") or {}, path, "answers")
    code = _string_map(data.get("code") or {}, path, "code")
    return Submission(
        student=student.strip(),
        assignment=str(data.get("assignment", "")),
        answers=answers,
        code=code,
        submitted_at=_when(data.get("submitted_at"), path),
    )


def _load(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise SubmissionError(f"{path}: larger than {MAX_BYTES // 1024} KiB")
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SubmissionError(f"{path}: cannot read: {exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise SubmissionError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from exc
    if not isinstance(data, dict):
        raise SubmissionError(f"{path}: expected a mapping with 'student' and 'answers'")
    return data


def _string_map(raw: Any, path: Path, field: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise SubmissionError(f"{path}: '{field}' must be a mapping")
    return {str(k): (v if isinstance(v, str) else repr(v)) for k, v in raw.items()}


def _when(raw: Any, path: Path) -> datetime | None:
    if raw is None:
        return None
    try:
        when = raw if isinstance(raw, datetime) else datetime.fromisoformat(str(raw))
    except ValueError as exc:
        raise SubmissionError(f"{path}: submitted_at is not an ISO 8601 time: {raw!r}") from exc
    # A time without a zone is taken as UTC rather than the grader's local zone.
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def grade_answer_files(prep: PreparedAssignment, paths: list[Path], workers: int = 1) -> list[SubmissionResult]:
    """Grade answers files; an unreadable or mismatched file is that student's ``ungradable``."""
    readable: list[Submission] = []
    order: list[tuple[str, SubmissionResult | None]] = []
    for path in paths:
        try:
            sub = read_answers_file(path)
        except SubmissionError as exc:
            order.append((path.stem, ungradable(path.stem, str(exc))))
            continue
        if sub.assignment and sub.assignment != prep.assignment.id:
            reason = f"{path}: answers are for assignment '{sub.assignment}', not '{prep.assignment.id}'"
            order.append((sub.student, ungradable(sub.student, reason)))
            continue
        readable.append(sub)
        order.append((sub.student, None))
    graded = iter(grade_all(prep, readable, workers))
    return [result if result is not None else next(graded) for _, result in order]
