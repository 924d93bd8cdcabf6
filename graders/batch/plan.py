"""A batch's plan: who is in the folder, with which grading key, and who to grade now.

Each student's grading key covers their notebook, their submission time and their own
due date (an extension), so a changed one is graded again and nothing else is. Dropped
students are left out, whatever ``--force`` says.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from ..course.loaded import get_assignment
from ..errors import UsageError
from ..exports.results_files import default_out_dir
from ..gradebook import store as gradebook
from ..gradebook.accommodations import sync as sync_accommodations
from ..gradebook.adjustments import dropped_students, due_dates
from ..gradebook.batch_sources import BatchSource
from ..gradebook.extensions import sync_file
from ..gradebook.roster_check import RosterCheck, check_roster
from ..grading.key import course_key, keyed_submission
from ..grading.pipeline import PreparedAssignment, prepare_assignment
from ..intake.roster import Roster
from ..submissions.folder import find_submissions
from ..submissions.found import Found
from ..submissions.times import read_times_file, with_times
from ..workspace import Workspace


@dataclass(frozen=True)
class Plan:
    """What a batch will do: everyone in the folder with their grading key, and who to grade."""

    prep: PreparedAssignment
    db_url: str
    out_dir: Path
    keyed: tuple[tuple[Found, str], ...]  # every student in the folder, with their grading key
    todo: tuple[tuple[Found, str], ...]  # those whose saved grade is missing or out of date
    dues: dict[str, datetime] = field(default_factory=dict)  # students' own due dates
    dropped: tuple[str, ...] = ()  # students of the folder dropped from the assignment
    source: BatchSource | None = None  # what a whole-class run reads (not a regrade)
    roster: Roster | None = None
    roster_check: RosterCheck = RosterCheck()

    def prep_for(self, student: str) -> PreparedAssignment:
        """The assignment as ``student`` is graded on it: with their own due date, if any."""
        return self.prep.due_on(self.dues.get(student))

    @property
    def untimed(self) -> tuple[str, ...]:
        """Students with a notebook and no submission time: graded without the late policy."""
        return tuple(f.student for f, _ in self.keyed if f.path and f.submitted_at is None)

    @property
    def ignored_times(self) -> tuple[tuple[str, str], ...]:
        """(student, file) of each time file found in a learner's own folder, not read."""
        return tuple((f.student, f.ignored_time) for f, _ in self.keyed if f.ignored_time)

    @property
    def lookalikes(self) -> tuple[tuple[str, str], ...]:
        """(student, other id) for each id of the folder that looks like another one."""
        return tuple((f.student, o) for f, _ in self.keyed for o in f.looks_like)

    @property
    def course(self) -> str:
        return self.prep.ctx.course.id

    @property
    def assignment(self) -> str:
        return self.prep.assignment.id

    @property
    def skipped(self) -> int:
        return len(self.keyed) - len(self.todo)


def plan_batch(
    session: Workspace,
    assignment: str,
    submissions: Path,
    *,
    db_url: str | None = None,
    out_dir: Path | None = None,
    force: bool = False,
    times: Path | None = None,
    only: str | None = None,
    roster: Roster | None = None,
    layout: str = "auto",
    archive: bool = False,
) -> Plan:
    """Find the notebooks, prepare the assignment, key each notebook, compare with the gradebook.

    ``times``: the instructor's times file, which comes before any recorded time. ``only``:
    grade that one student of the folder (``graders regrade``). ``layout``: ``--layout``
    (``auto``: by the folder's structure); ``archive``: the folder was unpacked from a .zip.
    Extensions (from the gradebook and ``extensions.yml``) and drops are read here. Cached
    truths need no sandbox, so a run with nothing new to grade starts none.
    """
    # An unknown assignment, a wrong folder or a bad times file fail before torch runs.
    get_assignment(session.loaded, assignment)
    others = session.loaded.course.other_assignments(assignment)
    handed_in = read_times_file(times) if times is not None else {}
    found = find_submissions(
        submissions,
        assignment,
        roster=roster,
        others=others,
        layout=layout,
        archive=archive,
        known=handed_in,
    )
    found = with_times(found, handed_in)
    if only is not None:
        found = _only(found, only, submissions)
    url = db_url or gradebook.default_url(session.loaded.root)
    engine = gradebook.open_gradebook(url)
    sync_file(engine, session.loaded)
    sync_accommodations(engine, session.loaded)  # an assignment added, a due date moved
    course = session.loaded.course.id
    with engine.connect() as conn:
        dues = due_dates(conn, course, assignment)
        dropped = dropped_students(conn, course, assignment)
    prep = prepare_assignment(session.loaded, assignment, session.ctx)
    course_hash = course_key(prep)
    keyed = tuple(
        keyed_submission(f, _with_due(course_hash, dues.get(f.student)))
        for f in found
        if f.student not in dropped
    )
    saved = gradebook.grading_keys(engine, course, assignment)
    todo = tuple((f, key) for f, key in keyed if force or saved.get(f.student) != key)
    out = out_dir or default_out_dir(session.loaded, assignment)
    source = BatchSource(
        submissions.resolve(),
        times.resolve() if times else None,
        out.resolve(),
        roster.path.resolve() if roster else None,
    )
    check = check_roster(roster, [f.student for f in found], saved) if only is None else None
    return Plan(
        prep,
        url,
        out,
        keyed,
        todo,
        dues,
        tuple(sorted({f.student for f in found} & dropped)),
        None if only else source,
        roster,
        _without(check, dropped) if check else RosterCheck(),
    )


def _without(check: RosterCheck, dropped: set[str]) -> RosterCheck:
    # A dropped student on the roster withdrew: they are not missing.
    return replace(check, missing=tuple(s for s in check.missing if s not in dropped))


def _only(found: list[Found], student: str, submissions: Path) -> list[Found]:
    mine = [f for f in found if f.student == student]
    if not mine:
        raise UsageError(f"no submission of {student} in {submissions}")
    return mine


def _with_due(course_hash: str, due: datetime | None) -> str:
    # A student's own due date decides their grade: changing it grades them again.
    return course_hash if due is None else f"{course_hash}:due={due.isoformat()}"
