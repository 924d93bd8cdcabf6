"""Results documents of small classes, for the report and export tests to count by eye."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gradebook_rows import record_results

from graders.gradebook import store as gradebook
from graders.results import QuestionResult, ResultsDocument, Status, StudentResult, SubmissionStatus

# The report tests' class (test_report_aggregate): 5 questions, 1 point each.
ITEMS = (
    "clone-basics/shares",
    "clone-basics/flag",
    "clone-basics/grad-fn",
    "detach-basics/shares",
    "detach-basics/resize",
)
EXPECTED = {
    "clone-basics/shares": "False",
    "clone-basics/flag": "True",
    "clone-basics/grad-fn": "<CloneBackward0>",
    "detach-basics/shares": "True",
    "detach-basics/resize": "no error",
}
CSM, CUTS, COPIES = "clone-shares-memory", "clone-cuts-graph", "detach-copies-memory"
OK = ("correct", None, None)


def answers(*cells: tuple[str, str | None, str | None]) -> tuple[QuestionResult, ...]:
    """One student's results, in ITEMS order, from (status, answer, misconception) cells."""
    out = []
    for item, (status, answer, misconception) in zip(ITEMS, cells, strict=True):
        right = status == "correct"
        out.append(
            QuestionResult(
                item,
                Status(status),
                1.0 if right else 0.0,
                1.0,
                EXPECTED[item] if right else answer,
                EXPECTED[item],
                "",
                misconception,
            )
        )
    return tuple(out)


def class_document() -> ResultsDocument:
    """The class of 7 whose every number test_report_aggregate's docstring counts by eye."""
    subs = [
        StudentResult("ada", answers(OK, OK, OK, OK, OK)),
        StudentResult(
            "bob",
            answers(
                ("wrong", "True", CSM),
                ("wrong", "False", CUTS),
                ("wrong", "None", CUTS),
                ("wrong", "False", COPIES),
                OK,
            ),
        ),
        StudentResult(
            "cy",
            answers(
                ("wrong", "True", CSM),
                OK,
                ("wrong", "<AddBackward0>", None),
                OK,
                ("invalid", "tensor(2.", None),
            ),
        ),
        StudentResult(
            "dee",
            answers(
                OK,
                OK,
                ("wrong", " AddBackward0 ", None),
                ("wrong", "False", COPIES),
                ("unanswered", None, None),
            ),
        ),
        StudentResult(
            "eve",
            answers(OK, OK, OK, OK, OK),
            SubmissionStatus.LATE_CUTOFF,
            "after the cutoff",
            0.0,
        ),
        StudentResult("fay", (), SubmissionStatus.UNGRADABLE, "the notebook is not valid JSON"),
        StudentResult(
            "gus", answers(OK, OK, OK, OK, ("wrong", "ValueError", None)), late_factor=0.8
        ),
    ]
    return ResultsDocument("tiny", "ps1", "2.13.0", "2026-10-07T09:00:00+00:00", "bubblewrap", subs)


# The exports tests' class (test_autograde_exports, test_junit_schema), its questions in sections.
Q = QuestionResult
SECTIONS = {"ex/a": "§1a", "ex/b": "§2", "code/check": "§4"}


def with_sections(result: StudentResult) -> StudentResult:
    return replace(
        result, questions=tuple(replace(q, section=SECTIONS[q.id]) for q in result.questions)
    )


def make_doc(tmp_path: Path) -> ResultsDocument:
    """Three students (a miss, a timeout, a late submission, an ungradable one) read back from
    a gradebook in ``tmp_path``: the exports tests' document."""
    engine = gradebook.open_gradebook(f"sqlite:///{tmp_path / 'g.db'}")
    results = [
        StudentResult(
            "ada",
            (
                Q("ex/a", Status.CORRECT, 1, 1, "False", "False", "ok"),
                Q(
                    "ex/b",
                    Status.WRONG,
                    0,
                    2,
                    "True\x07<b>",
                    "False",
                    "shares memory",
                    "clone-shares-memory",
                ),
                Q(
                    "code/check",
                    Status.TIMEOUT,
                    0,
                    3,
                    "while True:\n    pass",
                    None,
                    "took longer than 10 s",
                ),
            ),
        ),
        StudentResult(
            "bob",
            (
                Q("ex/a", Status.CORRECT, 1, 1, "False", "False", "ok"),
                Q("ex/b", Status.CORRECT, 2, 2, "False", "False", "ok"),
                Q("code/check", Status.CORRECT, 3, 3, "def f(): ...", None, ""),
            ),
            late_factor=0.8,
        ),
        StudentResult("=evil", (), SubmissionStatus.UNGRADABLE, "not a notebook"),
    ]
    record_results(engine, "c", "ps1", [with_sections(r) for r in results])
    return gradebook.results_document(engine, "c", "ps1")
