"""Answers files: a submission written as YAML instead of a notebook.

    student: ada
    assignment: ps1
    answers:
      <exercise-id>/<question-id>: "False"
    code:
      <code-exercise-id>: |
        def entry_function(t): ...

Values under ``answers`` are answer literals; YAML scalars that are not strings
(``True``, ``5``) are taken as the literal the learner typed.

The file is the learner's, so it is read as hostile data: YAML anchors and aliases are
refused (a 500-byte file of nested aliases expands to billions of nodes), every value is
rendered with a size budget, and the learner is the one the file's name says: a ``student``
field naming someone else makes the file ungradable, and two files for one learner in a
batch make that learner's one row ungradable, so no row is written twice or by someone else.
For the same reason the file carries no submission time the grader believes: a
``submitted_at`` in it is the learner's claim, ignored (``claims_a_time`` lets the command
say so); times come from the instructor's ``--times`` file, as for notebooks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from ..errors import SubmissionError
from ..intake.text import TextRefused, check_json
from ..kinds.base import Submission
from ..kinds.registry import all_kinds
from ..results import StudentResult
from ..said import say, told
from .pipeline import PreparedAssignment, grade_all, ungradable

MAX_BYTES = 2 << 20
MAX_LITERAL_CHARS = 10_000  # an answer longer than this is not a prediction anyone typed


class _NoAliasLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses anchors and aliases, with their place in the file."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            mark = event.start_mark
            raise yaml.YAMLError(
                f"{mark.line + 1}:{mark.column + 1}: YAML anchors and aliases (&, *) "
                "are not accepted in answers files"
            )
        return super().compose_node(parent, index)


def read_answers_file(path: Path) -> Submission:
    """Read one answers file; raise ``SubmissionError`` saying what is wrong with it."""
    data = _load(path)
    student = data.get("student")
    if not isinstance(student, str) or not student.strip():
        raise SubmissionError(say("{path}: 'student' must be a non-empty string", path=path))
    if student.strip() != path.stem:
        raise SubmissionError(
            say(
                "{path}: the file says student '{student}', but answers are graded under the "
                "name of their file ('{name}'); rename the file or correct 'student'",
                path=path,
                student=student.strip()[:80],
                name=path.stem,
            )
        )
    answers: dict[str, str] = {}
    for section in dict.fromkeys(kind.answers_section for kind in all_kinds()):
        answers.update(_string_map(data.get(section) or {}, path, section))
    return Submission(
        student=student.strip(),
        assignment=str(data.get("assignment", "")),
        answers=answers,
    )


def claims_a_time(path: Path) -> bool:
    """Does this answers file write its own ``submitted_at`` (which grading ignores)?"""
    try:
        return "submitted_at" in _load(path)
    except SubmissionError:
        return False


def _load(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise SubmissionError(
                say("{path}: larger than {limit} KiB", path=path, limit=MAX_BYTES // 1024)
            )
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_NoAliasLoader)  # noqa: S506 - a SafeLoader
    except (OSError, UnicodeDecodeError) as exc:
        raise SubmissionError(say("{path}: cannot read: {reason}", path=path, reason=exc)) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is None:
            raise SubmissionError(f"{path}:{exc}") from exc
        raise SubmissionError(
            say(
                "{place}: invalid YAML: {problem}",
                place=f"{path}:{mark.line + 1}:{mark.column + 1}",
                problem=getattr(exc, "problem", exc),
            )
        ) from exc
    if not isinstance(data, dict):
        raise SubmissionError(
            say("{path}: expected a mapping with 'student' and 'answers'", path=path)
        )
    try:
        check_json(data, str(path))
    except TextRefused as exc:
        raise SubmissionError(told(exc)) from exc
    return data


def _string_map(raw: Any, path: Path, field: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise SubmissionError(say("{path}: '{field}' must be a mapping", path=path, field=field))
    if not all(isinstance(k, (str, int, float, bool)) for k in raw):
        raise SubmissionError(
            say("{path}: the keys of '{field}' must be question ids", path=path, field=field)
        )
    return {str(k): (v if isinstance(v, str) else _literal(v, path)) for k, v in raw.items()}


def _literal(value: Any, path: Path) -> str:
    """The text a learner typed for a non-string YAML value (``[1, 2]``, ``True``), bounded."""
    text = (
        repr(value)
        if isinstance(value, (str, int, float, bool, type(None)))
        else _bounded_repr(value)
    )
    if len(text) > MAX_LITERAL_CHARS:
        raise SubmissionError(
            say(
                "{path}: an answer longer than {limit} characters",
                path=path,
                limit=MAX_LITERAL_CHARS,
            )
        )
    return text


def _bounded_repr(value: Any) -> str:
    """``repr`` of nested lists and dicts, built without recursion and stopped past the budget."""
    out: list[str] = []
    size, stack = 0, [(False, value)]  # (is it text to write as is, item)
    while stack and size <= MAX_LITERAL_CHARS:
        literal, item = stack.pop()
        if literal:
            piece = item
        elif isinstance(item, (list, dict)):
            # Annotated: mypy's join of the two branches has differed between runs.
            pairs: list[tuple[Any, Any]] = (
                list(item.items()) if isinstance(item, dict) else [(None, v) for v in item]
            )
            stack.append((True, "}" if isinstance(item, dict) else "]"))
            for i, (key, element) in enumerate(reversed(pairs)):
                stack.append((False, element))
                if key is not None:
                    stack += [(True, ": "), (False, key)]
                if i < len(pairs) - 1:
                    stack.append((True, ", "))
            piece = "{" if isinstance(item, dict) else "["
        else:
            piece = repr(item)
        out.append(piece)
        size += len(piece)
    return "".join(out)


def _claimed_twice(paths: list[Path]) -> dict[str, list[Path]]:
    by_student: dict[str, list[Path]] = {}
    for path in paths:
        by_student.setdefault(path.stem, []).append(path)
    return {student: found for student, found in by_student.items() if len(found) > 1}


def grade_answer_files(
    prep: PreparedAssignment,
    paths: list[Path],
    workers: int = 1,
    times: Mapping[str, datetime] | None = None,
) -> list[StudentResult]:
    """Grade answers files; an unreadable or mismatched file is that student's ``ungradable``.

    ``times`` (student -> submission time, from the instructor's times file) is what the late
    policy counts from; a student missing from it is graded without the late policy."""
    readable: list[Submission] = []
    order: list[tuple[str, StudentResult | None]] = []
    twice = _claimed_twice(paths)
    for path in paths:
        if path.stem in twice:
            if path == twice[path.stem][0]:  # one row for the learner, naming every file
                files = ", ".join(str(p) for p in twice[path.stem])
                order.append(
                    (
                        path.stem,
                        ungradable(
                            path.stem,
                            say(
                                "more than one file in this batch is for '{student}' ({files}); "
                                "grade one of them",
                                student=path.stem,
                                files=files,
                            ),
                        ),
                    )
                )
            continue
        try:
            sub = read_answers_file(path)
        except SubmissionError as exc:
            order.append((path.stem, ungradable(path.stem, told(exc))))
            continue
        if sub.assignment and sub.assignment != prep.assignment.id:
            reason = say(
                "{path}: answers are for assignment '{declared}', not '{assignment}'",
                path=path,
                declared=sub.assignment,
                assignment=prep.assignment.id,
            )
            order.append((sub.student, ungradable(sub.student, reason)))
            continue
        readable.append(replace(sub, submitted_at=(times or {}).get(sub.student)))
        order.append((sub.student, None))
    graded = iter(grade_all(prep, readable, workers))
    return [
        result if result is not None else _timed(next(graded), times or {}) for _, result in order
    ]


def _timed(result: StudentResult, times: Mapping[str, datetime]) -> StudentResult:
    """The result with the time its late policy counted from, as autograde records it."""
    when = times.get(result.student)
    return replace(result, submitted_at=when.isoformat(timespec="seconds")) if when else result
