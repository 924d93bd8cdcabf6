"""`graders ci`: grading one notebook where it is handed in (init-ci and gradescope set that up)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from ..errors import ExitCode, UsageError
from . import isolation_option, main, pages_lang_option

if TYPE_CHECKING:
    from ..integrations.ci.report import Threshold


class _ThresholdType(click.ParamType["Threshold"]):
    name = "SCORE"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Threshold:
        from ..integrations.ci.report import Threshold

        try:
            return value if isinstance(value, Threshold) else Threshold.parse(str(value))
        except ValueError:
            self.fail(
                f"expected points (6.5) or a share of the maximum (60%), got {value!r}", param, ctx
            )


def _refused(path: Path, reason: str) -> None:
    import json

    from ..exports.gradescope_results import refused_result
    from ..exports.results_files import write_atomic

    write_atomic(path, json.dumps(refused_result(reason), indent=2, ensure_ascii=False) + "\n")


def _optional_path(value: str | None) -> Path | None:
    # `--summary "$GITHUB_STEP_SUMMARY"` outside GitHub passes an empty string: no summary.
    return Path(value) if value else None


ci_course_option = click.option(
    "--course",
    type=click.Path(path_type=Path),
    default=None,
    help="course.yml (or its folder); default: .graders/course/, else the current folder's.",
)
min_score_option = click.option(
    "--min-score",
    "minimum",
    type=_ThresholdType(),
    default=None,
    help="Exit 1 below this score: points (6.5) or a share of the maximum (60%). Default: any "
    "score passes.",
)


@main.command()
@click.argument("notebook", type=click.Path(path_type=Path))
@click.option(
    "--assignment",
    default=None,
    help="Default: the one the notebook declares, or the course's only one.",
)
@ci_course_option
@min_score_option
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write a JUnit XML report.",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the results document.",
)
@click.option(
    "--junit-family",
    type=click.Choice(["xunit2", "legacy"]),
    default="xunit2",
    show_default=True,
    help="xunit2: valid against its schema, points as suite properties; legacy: properties "
    "inside each test case.",
)
@click.option(
    "--gradescope",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write Gradescope's results.json.",
)
@click.option(
    "--summary",
    default=None,
    metavar="PATH",
    help='Append a Markdown summary (GitHub: "$GITHUB_STEP_SUMMARY").',
)
@click.option(
    "--student",
    default=None,
    help="The learner's id: the name in the reports (default 'student') and, for exercises "
    "with parameters, whose variant to grade (then this or --student-from is required).",
)
@click.option(
    "--student-from",
    type=click.Choice(["gradescope-email", "gradescope-sid", "github-actor"]),
    default=None,
    help="Take the learner's id from the platform: Gradescope's submission metadata "
    "(users[0].email or .sid, through roster.csv beside course.yml when there is one) or "
    "GitHub's GITHUB_ACTOR.",
)
@click.option(
    "--no-late-policy",
    "no_late",
    is_flag=True,
    help="Apply no late policy: for a grader that runs on a schedule, whose time is not when "
    "the work was handed in.",
)
@pages_lang_option
@isolation_option
def ci(
    notebook: Path,
    assignment: str | None,
    course: Path | None,
    minimum: Threshold | None,
    junit: Path | None,
    junit_family: Literal["xunit2", "legacy"],
    json_path: Path | None,
    gradescope: Path | None,
    summary: str | None,
    student: str | None,
    student_from: str | None,
    no_late: bool,
    lang: str | None,
    isolation: str,
) -> None:
    """Grade one NOTEBOOK (or the one notebook in a folder) as autograde would.

    Prints each question's result and ends with `graders: SCORE/MAX points`. Exit 0: the
    score reaches --min-score; 1: it does not; 2: the notebook cannot be graded, or a
    usage or course error; 3: a bug in graders. The reports are written in every case
    where grading ran. The late policy counts from the time grading runs (on Gradescope,
    from the submission time Gradescope records), unless --no-late-policy. Every report
    but --gradescope's shows what the assignment's `feedback` policy lets learners see now
    (no expected answers before it closes, by default). Everything is said in the language
    the notebook was released in (or --lang), but the last line, which scripts read.
    """
    # The sandbox first, with nothing imported but what starts it: torch's warm-up is most
    # of what one notebook costs, and the imports below, the record and the course are read
    # while it runs.
    from ..integrations.ci.early import course_path, early_sandbox

    started = time.monotonic()
    try:
        with early_sandbox(course_path(course), notebook, isolation) as early:
            from .. import __version__
            from ..course.loaded import get_assignment
            from ..grading.pipeline import hit_a_bug
            from ..i18n import speaking
            from ..intake.text import shown as printable_text
            from ..integrations.ci.notebook import grade_notebook, in_learner_language
            from ..integrations.ci.report import Reports, log_lines, outcome, write_reports
            from ..submissions.times import ci_time
            from ..workspace import load
            from . import bug_request

            # Read before grading: an unreadable record or an unknown language is a usage
            # error.
            when = None if no_late else ci_time(notebook)
            loaded = load(course_path(course))  # once: every step below reads this course
            if lang is not None:
                loaded.language(lang)
            doc = grade_notebook(
                loaded,
                notebook,
                assignment,
                student=student,
                student_from=student_from,
                isolation=isolation,
                submitted_at=when,
                early=early,
            )
    except UsageError as exc:
        # Gradescope shows a generic failure when results.json is missing: say why instead.
        if gradescope is not None:
            _refused(gradescope, str(exc))
        raise
    shown = in_learner_language(loaded, doc, lang)
    reports = Reports(
        json_path,
        junit,
        junit_family,
        gradescope,
        _optional_path(summary),
        time.monotonic() - started,
        shown.labels,
        shown.names,
    )
    with speaking(shown.language):
        assignment_graded = get_assignment(loaded, doc.assignment)
        view = write_reports(shown.doc, minimum, assignment_graded, reports)
        for line in log_lines(view.doc, minimum, view.notice(), shown.labels, shown.names):
            click.echo(printable_text(line))
    if hit_a_bug(doc.students[0]):  # the reports say it could not be graded; the exit, why
        click.echo(bug_request(__version__), err=True)
        sys.exit(int(ExitCode.INTERNAL))
    sys.exit(int(outcome(view.doc, minimum)))
