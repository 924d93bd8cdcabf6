"""Who is graded, as the platform running ``graders ci`` knows them (``--student-from``).

    gradescope-email   Gradescope's ``/autograder/submission_metadata.json``: ``users[0].email``
    gradescope-sid     the same record's ``users[0].sid`` (the Student ID of Gradescope's roster)
    github-actor       ``GITHUB_ACTOR``: the GitHub account whose push started the workflow

The learner id decides a learner's variant of every exercise with parameters, so it comes
only from what the platform records, never from the notebook or another uploaded file:
Gradescope writes its metadata beside the submission folder, not inside it, and GitHub sets
``GITHUB_ACTOR``. With a roster beside ``course.yml`` (``roster.csv``, which ``graders
gradescope --roster`` puts in the autograder), a Gradescope value is looked up in the
roster's column of the same meaning (``email``, or ``sis_user_id`` for the SID) and the
learner is that row's ``student``. A GitHub login is the learner id as it is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import UsageError
from ...intake.identity import RULE, safe_student, student_id
from ...submissions.times import AUTOGRADER_ROOT, GRADESCOPE_METADATA, MAX_METADATA_BYTES

#: ``--student-from`` -> the Gradescope user field it reads (None: GitHub's actor).
SOURCES: dict[str, str | None] = {
    "gradescope-email": "email",
    "gradescope-sid": "sid",
    "github-actor": None,
}
#: The roster column that holds what a Gradescope field holds.
ROSTER_COLUMNS = {"email": "email", "sid": "sis_user_id"}
ROOT_ENV = "GRADERS_AUTOGRADER_ROOT"


def learner_from(source: str, course_root: Path, environ: Mapping[str, str] | None = None) -> str:
    """The learner id ``source`` names (``UsageError`` saying why there is none)."""
    env = os.environ if environ is None else environ
    if source not in SOURCES:
        raise UsageError(f"--student-from: unknown source '{source}' ({', '.join(SOURCES)})")
    field = SOURCES[source]
    if field is None:
        return _checked(env.get("GITHUB_ACTOR", ""), "GITHUB_ACTOR", "it is set in every job")
    from ...intake.roster import find_roster  # here: the pytest plugin and CLI import SOURCES

    value = gradescope_user(Path(env.get(ROOT_ENV) or AUTOGRADER_ROOT), field)
    roster = find_roster(course_root)
    if roster is None:
        return _checked(value, f"Gradescope's {field}", "")
    column = ROSTER_COLUMNS[field]
    entry = next((e for e in roster.entries if getattr(e, column) == value), None)
    if entry is None:
        raise UsageError(
            f"the submitter's {field} {value!r} (Gradescope's users[0].{field}) is in no row of "
            f"{roster.path.name}'s {column} column: add them to the roster, so that they are "
            "graded in their own variant"
        )
    return entry.student


def gradescope_user(root: Path, field: str) -> str:
    """``users[0].<field>`` of Gradescope's ``submission_metadata.json`` under ``root``."""
    path = root / GRADESCOPE_METADATA
    data = _metadata(path)
    users = data.get("users") if isinstance(data, dict) else None
    first = users[0] if isinstance(users, list) and users else None
    value = first.get(field) if isinstance(first, dict) else None
    if not isinstance(value, str) or not value.strip():
        other = "sid" if field == "email" else "email"
        raise UsageError(
            f"{path}: users[0] has no {field}, the learner id this autograder grades by "
            f"(build it with `graders gradescope --learner-id {other}` to use the {other})"
        )
    return value.strip()


def _metadata(path: Path) -> Any:
    if not path.is_file() or path.is_symlink():
        raise UsageError(
            f"no Gradescope submission metadata at {path}: --student-from gradescope-* runs "
            f"in a Gradescope autograder (or with {ROOT_ENV} naming a folder laid out like it)"
        )
    with path.open("rb") as handle:
        raw = handle.read(MAX_METADATA_BYTES + 1)
    if len(raw) > MAX_METADATA_BYTES:
        raise UsageError(f"{path}: larger than {MAX_METADATA_BYTES >> 20} MiB")
    try:
        return json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None


def _checked(value: str, what: str, hint: str) -> str:
    name = student_id(value.strip())
    if not name:
        raise UsageError(f"no learner id: {what} is not set" + (f" ({hint})" if hint else ""))
    if not safe_student(name):
        raise UsageError(f"{what} {name[:60]!r} cannot be a learner id ({RULE})")
    return name
