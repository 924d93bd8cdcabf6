"""Submission times, only from sources that record when work was handed in.

In order of trust, per student:

    1. nbgrader's ``timestamp.txt``, beside the notebook in ``<student>/<assignment>/``;
    2. Gradescope's ``submission_metadata.json`` (its ``created_at``), beside the notebook;
    3. a times file the instructor passes (``--times times.csv``: ``student,submitted_at``,
       as an LMS exports it);
    4. in ``graders ci``, the time grading ran (or, on Gradescope, the autograder's
       ``/autograder/submission_metadata.json``).

A file's modification time is never a submission time: downloading, unzipping or copying
a class's notebooks changes it. A student with no time from any source is graded without
the late policy, and the batch says how many.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Location, UsageError

if TYPE_CHECKING:
    from .submissions import Found  # which imports this module

TIMESTAMP_FILE = "timestamp.txt"
GRADESCOPE_METADATA = "submission_metadata.json"
MAX_TIMESTAMP_BYTES = 200
MAX_METADATA_BYTES = 1 << 20  # Gradescope lists previous submissions too; this is plenty
MAX_TIMES_FILE_BYTES = 16 << 20
#: Where Gradescope runs an autograder; ``GRADERS_AUTOGRADER_ROOT`` replaces it to try locally.
AUTOGRADER_ROOT = Path("/autograder")
TIMES_COLUMNS = ("student", "submitted_at")


def recorded_time(notebook: Path, shown_dir: str, nested: bool) -> datetime | None:
    """The time recorded beside a submitted notebook, or None when nothing records it.

    ``nested``: the notebook is in nbgrader's ``<student>/<assignment>/`` folder, where
    ``timestamp.txt`` belongs. ``shown_dir`` names the notebook's folder in messages.
    Raises ``ValueError`` naming ``file:line:column`` when a time file cannot be read.
    """
    folder = notebook.parent
    stamp = folder / TIMESTAMP_FILE
    if nested and _regular(stamp):
        return read_timestamp(stamp, f"{shown_dir}/{TIMESTAMP_FILE}")
    metadata = folder / GRADESCOPE_METADATA
    if _regular(metadata):
        return read_gradescope_metadata(metadata, f"{shown_dir}/{GRADESCOPE_METADATA}")
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
    ambiguous, and a wrong zone would decide who is late. Every problem is reported at once
    as ``file:line:column``.
    """
    try:
        if path.stat().st_size > MAX_TIMES_FILE_BYTES:
            raise UsageError(f"{path}: larger than {MAX_TIMES_FILE_BYTES >> 20} MiB")
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the times file: {exc}") from None
    rows = list(csv.reader(lines))
    columns = _times_columns(path, rows[0] if rows else [])
    times: dict[str, datetime] = {}
    first_line: dict[str, int] = {}
    problems: list[str] = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        student, when = (row[i].strip() if i < len(row) else "" for i in columns)
        starts = _field_starts(lines[number - 1])
        field, problem = _times_row_problem(student, when, first_line)
        if problem is None:
            try:
                times[student] = _explicit_zone(when)
                first_line[student] = number
                continue
            except ValueError as exc:
                field, problem = 1, f"submitted_at: {exc}"
        column = starts[columns[field]] if columns[field] < len(starts) else 1
        problems.append(f"{Location(str(path), number, column)}: {problem}")
    if problems:
        raise UsageError("\n".join(problems))
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


def _times_row_problem(
    student: str, when: str, first_line: Mapping[str, int]
) -> tuple[int, str | None]:
    """(0: the student's field, 1: the time's field) and what is wrong with it, if anything."""
    if not student:
        return 0, "student: empty"
    if student in first_line:
        return 0, f"{student} is listed twice (first on line {first_line[student]})"
    if not when:
        return 1, f"submitted_at: empty for {student}"
    return 0, None


def _field_starts(line: str) -> list[int]:
    """The 1-based column where each CSV field of ``line`` starts (quotes respected)."""
    starts, quoted = [1], False
    for index, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            starts.append(index + 2)
    return starts


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
    """Each student's entry, with the times file's time where nothing beside the notebook
    recorded one (a recorded file comes first, in the order of trust)."""
    return [
        replace(f, submitted_at=times[f.student])
        if f.submitted_at is None and f.path is not None and f.student in times
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
