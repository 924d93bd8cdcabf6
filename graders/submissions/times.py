"""Submission times, only from the instructor's side: what recorded when work came in.

Per student, the first of:

    1. the times file the instructor passes (``--times times.csv``: ``student,submitted_at``,
       as an LMS exports it): the instructor's own word;
    2. nbgrader's ``timestamp.txt`` in ``<student>/<assignment>/``, in nbgrader's layout
       only (``folder_layout``): nbgrader's exchange wrote it when it took the work in;
    3. in ``graders ci``, the time grading runs, or on Gradescope the autograder's
       ``/autograder/submission_metadata.json``, which Gradescope writes beside the
       submission, never inside it.

A time file anywhere a learner could have put it (a ``timestamp.txt`` or a
``submission_metadata.json`` in their own folder, a repository, an uploaded zip) would
let them choose their own time: it is never read, and the batch says it ignored it. A
file's modification time is never a submission time either: downloading, unzipping or
copying a class's notebooks changes it. A student with no time from any source is graded
without the late policy, and the batch says how many.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Location, Problem, UsageError
from ..intake.csv_rows import Unreadable, read_records
from ..intake.identity import RULE, case_key, id_problem, student_id

if TYPE_CHECKING:
    from .found import Found

TIMESTAMP_FILE = "timestamp.txt"
GRADESCOPE_METADATA = "submission_metadata.json"
MAX_TIMESTAMP_BYTES = 200
MAX_METADATA_BYTES = 1 << 20  # Gradescope lists previous submissions too; this is plenty
MAX_TIMES_FILE_BYTES = 16 << 20
#: Where Gradescope runs an autograder; ``GRADERS_AUTOGRADER_ROOT`` replaces it to try locally.
AUTOGRADER_ROOT = Path("/autograder")
TIMES_COLUMNS = ("student", "submitted_at")


def recorded_time(notebook: Path, shown_dir: str) -> datetime | None:
    """The time nbgrader recorded beside a notebook of its ``submitted/`` folder (None:
    it recorded none). ``shown_dir`` names the notebook's folder in messages. Raises
    ``ValueError`` naming ``file:line:column`` when the file cannot be read.
    """
    stamp = notebook.parent / TIMESTAMP_FILE
    if _regular(stamp):
        return read_timestamp(stamp, f"{shown_dir}/{TIMESTAMP_FILE}")
    return None


def learners_time_file(notebook: Path, student_dir: Path, shown_dir: str) -> str | None:
    """A time file in a folder the learner filled, beside their notebook or in their
    folder (how messages name it): never read, only said to be ignored."""
    folders = dict.fromkeys([notebook.parent, student_dir])
    for folder in folders:
        for name in (TIMESTAMP_FILE, GRADESCOPE_METADATA):
            if (folder / name).exists() or (folder / name).is_symlink():
                shown = shown_dir if folder == notebook.parent else student_dir.name
                return f"{shown}/{name}"
    return None


def _regular(path: Path) -> bool:
    # Never a link: a submission must not point the grader at another file.
    return path.is_file() and not path.is_symlink()


def read_timestamp(path: Path, shown: str) -> datetime:
    """nbgrader's ``timestamp.txt`` (``2026-10-05 20:00:00.000000 UTC``), as an aware time."""
    with path.open("rb") as handle:
        raw = handle.read(MAX_TIMESTAMP_BYTES).decode("utf-8", errors="replace")
    text = raw.strip()
    try:
        return parse_timestamp(text)
    except ValueError as exc:
        line, column = _position(raw, text)
        raise ValueError(f"{Location(shown, line, column)}: {exc}") from None


def parse_timestamp(text: str) -> datetime:
    """A submission time as nbgrader writes it; a time without a zone is UTC (as in nbgrader)."""
    body, _, zone = text.rpartition(" ")
    candidates = [(text, None), (body, zone)] if body else [(text, None)]
    for stamp, zone_name in candidates:
        try:
            when = datetime.fromisoformat(stamp)
        except ValueError:
            continue
        return _in_zone(when, zone_name, text)
    raise ValueError(f"not a time: {text[:60]!r}")


def _in_zone(when: datetime, zone: str | None, text: str) -> datetime:
    if zone is None or zone.upper() in ("UTC", "GMT", "Z"):
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    offset = re.fullmatch(r"([+-])(\d\d):?(\d\d)", zone)
    if offset is None or when.tzinfo is not None:
        raise ValueError(
            f"unknown time zone {zone!r} in {text[:60]!r} (write UTC or an offset like +0200)"
        )
    delta = timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
    return when.replace(tzinfo=timezone(delta if offset.group(1) == "+" else -delta))


def read_gradescope_metadata(path: Path, shown: str) -> datetime:
    """The ``created_at`` of Gradescope's ``submission_metadata.json``: when it was submitted."""
    with path.open("rb") as handle:
        raw = handle.read(MAX_METADATA_BYTES + 1)
    if len(raw) > MAX_METADATA_BYTES:
        raise ValueError(f"{shown}: larger than {MAX_METADATA_BYTES >> 20} MiB")
    text = raw.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{Location(shown, exc.lineno, exc.colno)}: not JSON: {exc.msg}") from None
    created = data.get("created_at") if isinstance(data, dict) else None
    if not isinstance(created, str):
        raise ValueError(f"{shown}: no created_at time (Gradescope's submission time)")
    line, column = _position(text, '"created_at"')
    try:
        return _aware(datetime.fromisoformat(created.strip()))
    except ValueError:
        raise ValueError(
            f"{Location(shown, line, column)}: created_at is not a time: {created[:60]!r}"
        ) from None


def _aware(when: datetime) -> datetime:
    if when.tzinfo is None:
        raise ValueError("no time zone")
    return when


def _position(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column of ``needle`` in ``text`` (1, 1 when it is not there)."""
    index = text.find(needle) if needle else -1
    if index < 0:
        return 1, 1
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1


def read_times_file(path: Path) -> dict[str, datetime]:
    """Student -> submission time, from a CSV with the columns ``student`` and ``submitted_at``.

    Other columns are ignored (an LMS export has many). Each time is ISO 8601 or nbgrader's
    form and must name its zone (``Z``, ``+02:00``, ``UTC``): a local time in an export is
    ambiguous, and a wrong zone would decide who is late. Each student is an id as a
    folder's is (``intake.identity``), listed once, regardless of case. Every problem is
    reported at once as ``file:line:column``.
    """
    shown = str(path)
    try:
        records = read_records(path, shown, MAX_TIMES_FILE_BYTES, "the times file")
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the times file: {exc.strerror or exc}") from None
    except Unreadable as exc:
        raise UsageError(str(exc.problem)) from None
    columns = _times_columns(path, records[0].cells if records else [])
    times: dict[str, datetime] = {}
    first: dict[str, tuple[str, int]] = {}  # case key -> (student, line)
    problems: list[Problem] = []
    for record in records[1:]:
        student, when = (record.cells[i].strip() if i < len(record.cells) else "" for i in columns)
        places = [Location(shown, *record.place(i)) for i in columns]
        student_problem = _student_problem(student_id(student), first)
        if student_problem is not None:
            problems.append(Problem(places[0], student_problem))
        else:
            first[case_key(student)] = (student_id(student), record.line)
        try:
            when_at = _explicit_zone(when) if when else None
        except ValueError as exc:
            problems.append(Problem(places[1], f"submitted_at: {exc}"))
            continue
        if when_at is None:
            problems.append(Problem(places[1], f"submitted_at: empty for {student or 'this row'}"))
        elif student_problem is None:
            times[student_id(student)] = when_at
    if problems:
        raise UsageError("\n".join(str(p) for p in problems))
    return times


def _times_columns(path: Path, header: list[str]) -> tuple[int, int]:
    names = [h.strip().lower() for h in header]
    missing = [c for c in TIMES_COLUMNS if c not in names]
    if missing:
        raise UsageError(
            f"{Location(str(path), 1, 1)}: the times file needs the columns student,submitted_at "
            f"(missing: {', '.join(missing)})"
        )
    return names.index("student"), names.index("submitted_at")


def _student_problem(student: str, first: Mapping[str, tuple[str, int]]) -> str | None:
    """What is wrong with a row's student, if anything: empty, not an id, listed before."""
    if not student:
        return "student: empty"
    if (why := id_problem(student)) is not None:
        return f"student: {student!r} is not allowed: {why} ({RULE})"
    if (earlier := first.get(case_key(student))) is not None:
        name, line = earlier
        if name == student:
            return f"{student} is listed twice (first on line {line})"
        return (
            f"{student} is listed twice (first on line {line} as {name!r}; ids differ only in case)"
        )
    return None


def _explicit_zone(text: str) -> datetime:
    when = parse_timestamp(text)
    try:
        named = datetime.fromisoformat(text).tzinfo is not None
    except ValueError:
        named = True  # parse_timestamp read a zone written apart: `... UTC`, `... +0200`
    if not named:
        raise ValueError(f"{text!r} has no time zone (write 2026-10-05T21:14:00+02:00, or …Z)")
    return when


def with_times(found: Iterable[Found], times: Mapping[str, datetime]) -> list[Found]:
    """Each student's entry, with the time the instructor's times file gives them: it
    comes first, before the time nbgrader recorded."""
    return [
        replace(f, submitted_at=times[f.student])
        if f.path is not None and f.student in times
        else f
        for f in found
    ]


def ci_time(notebook: Path, now: datetime | None = None) -> datetime:
    """The submission time of a notebook graded by ``graders ci``: Gradescope's record of it
    when it runs as a Gradescope autograder, else the time grading runs."""
    root = Path(os.environ.get("GRADERS_AUTOGRADER_ROOT") or AUTOGRADER_ROOT)
    metadata = root / GRADESCOPE_METADATA
    # Only the file Gradescope writes beside the submission folder counts: one inside the
    # submission is the learner's upload, and would let them choose their own time.
    if _inside(notebook, root / "submission") and _regular(metadata):
        try:
            return read_gradescope_metadata(metadata, str(metadata))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return now or datetime.now(UTC)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (OSError, ValueError):
        return False
    return True
