"""`graders.submit()` and `graders submit`: what the learner reads in each case.

The client talks real HTTP to a stand-in service on loopback (``submit_helpers``); the
same client against `graders serve` itself is `test_submit_live.py`, and in JupyterLab and
Notebook 7 `test_submit_browser.py`.
"""

from __future__ import annotations

import json
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from small_course import RIGHT, small_course
from submit_helpers import FakeService, graded_json, released_notebook
from what_starts import starts

from graders.cli import main
from graders.course.load import load_course
from graders.errors import SubmissionError, SubmitError
from graders.notebook.release import SUBMIT_CALL, student_notebook
from graders.notebook.submit import submit, submit_notebook
from graders.notebook.tokens import TokenStore, config_folder

ADA = "ada-token"


@pytest.fixture
@starts("server")
def fake() -> Iterator[FakeService]:
    with FakeService() as service:
        yield service


@pytest.fixture(autouse=True)
def own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own user config folder, and no token or service from outside."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("GRADERS_TOKEN", raising=False)
    monkeypatch.delenv("GRADERS_SERVICE", raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    return tmp_path / "config" / "graders"


class Asked:
    """The learner at the hidden prompt: types ``token`` and counts how often asked."""

    def __init__(self, token: str = ADA) -> None:
        self.token, self.prompts = token, []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.token


def run_and_saved(path: Path, counts: list[int]) -> Path:
    """``path`` as Jupyter saves it after running its first code cells: ``counts`` each."""
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    for cell, count in zip(code, counts, strict=False):
        cell["execution_count"] = count
    path.write_text(json.dumps(nb))
    return path


def graded_service(fake: FakeService, **changes: object) -> None:
    fake.answer("POST", 202, {"id": 7, "status": "queued", "received_at": "2026-10-01T12:00"})
    fake.answer("GET", 200, graded_json(7, **changes))


def test_a_learner_submits_and_reads_the_feedback(fake: FakeService, tmp_path: Path) -> None:
    graded_service(fake)
    path = released_notebook(tmp_path, service=fake.url)
    asked = Asked()
    feedback = submit_notebook(path, ask=asked)
    assert feedback.text().splitlines() == [
        "Submission 7 of ps1: 5 / 6 points.",
        "This submission is your grade of record.",
        "You have 2 attempts left.",
        "To review (1):",
        "  - Question 1.1 — clone() basics: not correct, 0 / 1",
        "    clone() copies the data.",
        "    Expected: False",
    ]
    sent, polled = fake.requests
    assert (sent.method, sent.path) == ("POST", "/api/assignments/ps1/submissions")
    assert sent.headers["Authorization"] == f"Bearer {ADA}"
    assert sent.uploaded() == ("ps1.ipynb", path.read_bytes())  # the saved file, as it is
    assert polled.path == "/api/submissions/7?wait=20"
    assert len(asked.prompts) == 1 and fake.url in asked.prompts[0]


def test_what_every_missed_question_says_is_said_once(fake: FakeService, tmp_path: Path) -> None:
    later = "The explanation of this question comes with the expected answer."
    wrong = {"status": "wrong", "points": 0, "max_points": 1, "answer": "True"}
    questions = [
        {"id": "clone-basics/shares", **wrong, "feedback": f"clone() copies the data.\n\n{later}"},
        {"id": "clone-basics/flag", **wrong, "feedback": later},
        {"id": "detach-basics/flag", "status": "correct", "points": 4, "max_points": 4},
    ]
    graded_service(fake, questions=questions, score=4.0)
    feedback = submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    text = feedback.text()
    assert text.count(later) == 1 and text.endswith(f"About every question above:\n{later}"), text
    assert "    clone() copies the data.\n  - Question 1.2" in text
    assert feedback.html().count(later) == 1


def test_the_notebook_shows_the_feedback_s_code_and_emphasis_not_its_marks(
    fake: FakeService, tmp_path: Path
) -> None:
    # Author text is Markdown: the notebook shows `clone()` as code, as the pages do, not
    # the backticks; what a learner typed stays text (escaped), whatever it holds.
    wrong = {"status": "wrong", "points": 0, "max_points": 1, "answer": "<b>True</b>"}
    told = "`clone()` copies **the data**; got ``<b>True</b>``."
    questions = [{"id": "clone-basics/shares", **wrong, "feedback": told}]
    graded_service(fake, questions=questions, score=0.0)
    feedback = submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    shown = feedback.html()
    assert "<code>clone()</code> copies <strong>the data</strong>" in shown, shown
    assert "got <code>&lt;b&gt;True&lt;/b&gt;</code>." in shown and "`" not in shown
    assert told in feedback.text()  # plain text keeps the Markdown, readable as it is


def test_the_number_a_learner_reads_is_their_own_attempts(
    fake: FakeService, tmp_path: Path
) -> None:
    """The service's id counts the class's submissions; the learner reads their own count."""
    graded_service(fake, id=22, attempt=2)
    feedback = submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    assert feedback.text().splitlines()[0] == "Your attempt 2 at ps1: 5 / 6 points."


def test_the_token_is_asked_once_and_kept_for_the_owner_only(
    fake: FakeService, tmp_path: Path, own_config: Path
) -> None:
    graded_service(fake)
    path = released_notebook(tmp_path, service=fake.url)
    asked = Asked()
    submit_notebook(path, ask=asked)
    submit_notebook(path, ask=asked)
    assert len(asked.prompts) == 1
    kept = own_config / "tokens.json"
    assert config_folder() == own_config
    assert json.loads(kept.read_text()) == {fake.url: ADA}
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert ADA.encode() not in path.read_bytes()  # never in the notebook handed in


def test_graders_token_in_the_environment_wins_and_is_not_kept(
    fake: FakeService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_config: Path
) -> None:
    graded_service(fake)
    TokenStore().put(fake.url, "kept-token")
    monkeypatch.setenv("GRADERS_TOKEN", "from-the-hub")
    asked = Asked()
    submit_notebook(released_notebook(tmp_path, service=fake.url), ask=asked)
    assert asked.prompts == []
    assert fake.requests[0].headers["Authorization"] == "Bearer from-the-hub"
    assert TokenStore().get(fake.url) == "kept-token"


def test_graders_service_overrides_the_notebooks_address(
    fake: FakeService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graded_service(fake)
    monkeypatch.setenv("GRADERS_SERVICE", fake.url + "/")
    path = released_notebook(tmp_path, service="http://127.0.0.1:9/gone")
    assert submit_notebook(path, ask=Asked()).score == 5.0
    assert len(fake.requests) == 2


REFUSALS = [
    pytest.param(
        404,
        {"error": "There is no assignment 'ps1' in this course.", "status": 404},
        {},
        "The service at {url} has no assignment 'ps1': this notebook is not one of its "
        "course's; nothing was submitted.",
        id="another-course",
    ),
    pytest.param(
        413,
        {"error": "The notebook is larger than the 1 MB a notebook may be.", "status": 413},
        {},
        "The notebook is too large for the service: clear its outputs (Edit > Clear Outputs "
        "of All Cells), save it and submit again.",
        id="too-large",
    ),
    pytest.param(
        422,
        {"error": "ps1.ipynb: this notebook is for assignment 'ps2', not 'ps1'", "status": 422},
        {},
        "The service did not take this notebook: ps1.ipynb: this notebook is for assignment "
        "'ps2', not 'ps1'",
        id="another-assignment",
    ),
    pytest.param(
        429,
        {"error": "You have used all 2 attempts at ps1.", "status": 429, "reason": "attempt-limit"},
        {"Retry-After": "86400"},
        "You have used all your attempts at ps1: nothing was submitted, and your grade of "
        "record stays as it is.",
        id="attempt-limit",
    ),  # fmt: skip
    pytest.param(
        403,
        {"error": "ps1 closed at 2026-10-07 23:59: it takes no more submissions.", "status": 403},
        {},
        "The service did not take this notebook (403): ps1 closed at 2026-10-07 23:59: it "
        "takes no more submissions.",
        id="closed",
    ),
    pytest.param(
        503,
        {},
        {},
        "The service did not take this notebook (503): no reason given.",
        id="unavailable-without-a-reason",
    ),
]


@pytest.mark.parametrize(("status", "body", "headers", "sentence"), REFUSALS)
def test_a_refused_upload_is_one_sentence(
    fake: FakeService,
    tmp_path: Path,
    status: int,
    body: dict[str, object],
    headers: dict[str, str],
    sentence: str,
) -> None:
    fake.answer("POST", status, body, headers)
    with pytest.raises(SubmitError) as refused:
        submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    assert str(refused.value) == sentence.format(url=fake.url)
    assert [r.method for r in fake.requests] == ["POST"]
    assert TokenStore().get(fake.url) == ADA  # the service took the token: kept


def test_too_soon_says_when_the_next_attempt_is_possible(fake: FakeService, tmp_path: Path) -> None:
    body = {"error": "Wait 37 s ...", "status": 429, "reason": "too-soon"}
    fake.answer("POST", 429, body, {"Retry-After": "37"})
    with pytest.raises(SubmitError) as refused:
        submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    said = str(refused.value)
    assert re.match(
        r"Not yet: your next attempt at ps1 is possible at [\d:-]+ UTC\S* \(in 37 s\)\.$", said
    ), said


def test_a_refused_token_is_forgotten_so_the_next_submit_asks_again(
    fake: FakeService, tmp_path: Path
) -> None:
    TokenStore().put(fake.url, "replaced-token")
    fake.answer("POST", 401, {"error": "This token is not valid ...", "status": 401})
    path = released_notebook(tmp_path, service=fake.url)
    asked = Asked()
    with pytest.raises(SubmitError) as refused:
        submit_notebook(path, ask=asked)
    assert str(refused.value) == (
        "The service refused your token (it may have been replaced by a newer one), so it is "
        "forgotten: run submit again and type the token your instructor gave you."
    )
    assert asked.prompts == [] and TokenStore().get(fake.url) is None
    graded_service(fake)
    fake.answer("POST", 202, {"id": 8, "status": "queued", "received_at": "x"})
    submit_notebook(path, ask=asked)
    assert len(asked.prompts) == 1 and TokenStore().get(fake.url) == ADA


def test_a_refused_token_from_the_environment_says_so(
    fake: FakeService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADERS_TOKEN", "stale")
    fake.answer("POST", 401, {"error": "This token is not valid ...", "status": 401})
    with pytest.raises(SubmitError, match=r"^The service refused the token in GRADERS_TOKEN: "):
        submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())


@pytest.mark.parametrize(
    ("service", "sentence"),
    [
        pytest.param(
            None,
            "This notebook names no grading service to submit to: ask your instructor for its "
            "address and set GRADERS_SERVICE to it.",
            id="no-service-named",
        ),
        pytest.param(
            "grading.example.edu",
            "The grading service's address, grading.example.edu, is not an http:// or https:// "
            "address: ask your instructor for the right one.",
            id="not-an-address",
        ),
    ],
)
def test_without_a_service_nothing_is_asked_or_sent(
    tmp_path: Path, service: str | None, sentence: str
) -> None:
    asked = Asked()
    with pytest.raises(SubmitError) as refused:
        submit_notebook(released_notebook(tmp_path, service=service), ask=asked)
    assert str(refused.value) == sentence and asked.prompts == []


@pytest.mark.server
def test_an_unreachable_service_is_one_sentence(tmp_path: Path) -> None:
    with FakeService() as gone:
        url = gone.url  # a port nothing listens on once it is closed
    with pytest.raises(SubmitError) as refused:
        submit_notebook(released_notebook(tmp_path, service=url), ask=Asked())
    said = str(refused.value)
    assert said.startswith(f"The grading service at {url} cannot be reached (")
    assert said.endswith("): check the connection and try again; nothing was submitted.")
    assert TokenStore().get(url) is None  # never taken by a service: not kept


def test_an_address_that_is_not_a_graders_service_is_said_so(
    fake: FakeService, tmp_path: Path
) -> None:
    fake.answer("POST", 200, [{"a list": "as GET /api/assignments/ps1/submissions answers"}])
    with pytest.raises(SubmitError) as refused:
        submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    assert str(refused.value) == (
        f"The grading service at {fake.url} cannot be reached ({fake.url}/api/assignments/ps1/"
        "submissions did not answer as graders serve does): check the connection and try "
        "again; nothing was submitted."
    )


def test_a_score_without_questions_says_why(fake: FakeService, tmp_path: Path) -> None:
    late = "Submitted after the late cutoff (2026-10-08 23:59): the score is 0."
    graded_service(fake, score=0.0, error=late, questions=[], counted=False)
    feedback = submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    assert feedback.text().splitlines() == [
        "Submission 7 of ps1: 0 / 6 points.",
        late,
        "Another of your submissions stays your grade of record.",
        "You have 2 attempts left.",
    ]


def test_no_token_where_none_can_be_asked(fake: FakeService, tmp_path: Path) -> None:
    def cannot_ask(prompt: str) -> str:
        from graders.notebook.tokens import NoToken

        raise NoToken

    with pytest.raises(SubmitError) as refused:
        submit_notebook(released_notebook(tmp_path, service=fake.url), ask=cannot_ask)
    assert str(refused.value) == (
        "Nothing was submitted: no token was typed, and GRADERS_TOKEN is not set; set it to the "
        "token your instructor gave you, or run submit where it can ask for one."
    )
    assert fake.requests == []


def test_a_grade_that_takes_too_long_names_the_submission(
    fake: FakeService, tmp_path: Path
) -> None:
    fake.answer("POST", 202, {"id": 41, "status": "queued", "received_at": "x"})
    fake.answer("GET", 200, graded_json(41, status="queued", score=None, questions=[]))
    with pytest.raises(SubmitError) as waited:
        submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked(), timeout_s=1)
    assert str(waited.value) == (
        "Submission 41 was handed in, but is not graded after 1 s (the service may be busy): "
        f"its feedback will be on the service's pages at {fake.url}."
    )


def test_interrupting_the_wait_says_the_submission_was_handed_in(
    fake: FakeService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graders.notebook.service_client import ServiceClient

    def interrupted(
        self: ServiceClient, ident: int, wait_s: float, within_s: float | None = None
    ) -> None:
        raise KeyboardInterrupt  # the learner pressed the kernel's stop button

    fake.answer("POST", 202, {"id": 12, "status": "queued", "received_at": "x"})
    monkeypatch.setattr(ServiceClient, "submission", interrupted)
    with pytest.raises(SubmitError) as stopped:
        submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    assert str(stopped.value) == (
        "Stopped waiting: submission 12 was handed in all the same, and its feedback will be on "
        f"the service's pages at {fake.url}."
    )


def test_a_submission_graders_could_not_grade_costs_nothing(
    fake: FakeService, tmp_path: Path
) -> None:
    fake.answer("POST", 202, {"id": 9, "status": "queued", "received_at": "x"})
    fake.answer("GET", 200, graded_json(9, status="failed", error="the sandbox broke.", score=None))
    feedback = submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked())
    assert feedback.text() == (
        "The service could not grade submission 9 of ps1: the sandbox broke. It costs you no "
        "attempt."
    )


def test_an_unreadable_answer_stops_before_an_attempt_is_spent(
    fake: FakeService, tmp_path: Path
) -> None:
    broken = RIGHT | {"clone-basics/flag": "Tru e"}
    with pytest.raises(SubmitError) as stopped:
        submit_notebook(released_notebook(tmp_path, broken, service=fake.url), ask=Asked())
    said = str(stopped.value)
    assert "The grader cannot read 1 of your answers:" in said
    assert "  - Question 1.2 — clone() basics: " in said
    assert said.endswith(
        "Nothing was submitted: fix the answers the grader cannot read, save the notebook and "
        "submit again."
    )
    assert fake.requests == []


def test_a_notebook_of_another_assignment_is_caught_before_upload(
    fake: FakeService, tmp_path: Path
) -> None:
    path = released_notebook(tmp_path, service=fake.url)
    with pytest.raises(SubmissionError, match=r"this notebook is for assignment 'ps1', not 'ps2'"):
        submit_notebook(path, assignment="ps2", ask=Asked())
    unnamed = released_notebook(tmp_path, service=fake.url, assignment=None, name="x.ipynb")
    with pytest.raises(SubmitError, match=r"does not say which assignment it is"):
        submit_notebook(unnamed, ask=Asked())
    assert fake.requests == []


SUBMIT_CELL = "import graders\ngraders.submit()"


@pytest.mark.parametrize(
    ("counts", "ran", "stopped"),
    [
        # What the file holds for its code cells (answer = True/False/False) once saved.
        pytest.param([1, 2, 3], ["answer = False", "answer = True", "answer = False"], False,
                     id="saved-after-the-last-cell-ran"),
        pytest.param([1, 2, 3], ["answer = False", "answer = True", "answer = False",
                                 "answer = False", "answer = True"], False,
                     id="run-again-unchanged-since-the-save"),
        pytest.param([1, 2], ["answer = False", "answer = True", "answer = 'no'"], True,
                     id="an-edit-ran-since-the-save"),
        pytest.param([], [], False, id="nothing-ran-before-submit"),
    ],
)  # fmt: skip
def test_an_unsaved_notebook_spends_no_attempt(
    fake: FakeService, tmp_path: Path, counts: list[int], ran: list[str], stopped: bool
) -> None:
    """Only the saved file is handed in: when the kernel ran cells the file does not hold,
    nothing is sent (no attempt spent) and the learner is told to save, or to say anyway."""
    graded_service(fake)
    path = run_and_saved(released_notebook(tmp_path, service=fake.url), counts)
    inputs = ["", *ran, SUBMIT_CELL]
    warnings: list[str] = []
    if stopped:
        with pytest.raises(SubmitError) as refused:
            submit_notebook(path, ask=Asked(), ran=inputs, warn=warnings.append)
        assert str(refused.value).startswith(
            "Nothing was submitted: ps1.ipynb on disk is not what you ran (1 of the cells you "
            "ran since it was saved are not in it)"
        )
        assert str(refused.value).endswith("submit(anyway=True).") and fake.requests == []
        submit_notebook(path, ask=Asked(), ran=inputs, anyway=True, warn=warnings.append)
        assert warnings == ["Handing in ps1.ipynb as it was saved, not as you ran it."]
    else:
        submit_notebook(path, ask=Asked(), ran=inputs, warn=warnings.append)
        assert warnings == []
    assert len(fake.requests) == 2  # handed in once: the upload and its poll


def test_everything_is_said_in_the_notebooks_language(fake: FakeService, tmp_path: Path) -> None:
    path = released_notebook(tmp_path, service=fake.url, language="zh")
    graded_service(fake)
    with pytest.raises(SubmitError) as unsaved:
        submit_notebook(path, ask=Asked(), ran=["", "answer = 1", SUBMIT_CELL])
    assert str(unsaved.value).startswith("没有提交任何内容")
    feedback = submit_notebook(path, ask=Asked())
    assert fake.requests[0].headers["Accept-Language"] == "zh"  # the service's words too
    assert feedback.text().splitlines()[:3] == [
        "ps1 的提交 7：5 / 6 分。",  # the service's id: not a count of hers
        "这次提交是你的计入成绩。",
        "你还有 2 次提交机会。",
    ]
    fake.answer("POST", 404, {"error": "…", "status": 404})
    with pytest.raises(SubmitError) as refused:
        submit_notebook(path, ask=Asked())
    assert str(refused.value).startswith(f"{fake.url} 上的评分服务没有作业 'ps1'")


def test_the_feedback_is_html_in_a_notebook_with_everything_escaped(
    fake: FakeService, tmp_path: Path
) -> None:
    question = {"id": "clone-basics/shares", "status": "wrong", "points": 0, "max_points": 1,
                "feedback": "<script>alert(1)</script>"}  # fmt: skip
    graded_service(fake, questions=[question])
    shown = submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked()).html()
    assert "<script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    assert "<strong>Question 1.1 — clone() basics</strong>: not correct, 0 / 1" in shown


def test_only_what_the_service_returned_is_shown(fake: FakeService, tmp_path: Path) -> None:
    # Before the due date the course may keep expected answers back: the service leaves
    # them out, and nothing stands in for them.
    held_back = {"id": "clone-basics/shares", "status": "wrong", "points": 0, "max_points": 1}
    graded_service(fake, questions=[held_back])
    text = submit_notebook(released_notebook(tmp_path, service=fake.url), ask=Asked()).text()
    assert text.endswith("To review (1):\n  - Question 1.1 — clone() basics: not correct, 0 / 1")


def test_submit_in_a_script_prints_the_feedback_or_one_sentence(
    fake: FakeService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    graded_service(fake)
    monkeypatch.setenv("GRADERS_TOKEN", ADA)
    monkeypatch.chdir(tmp_path)
    released_notebook(tmp_path, service=fake.url)
    submit()  # the only notebook in the folder
    shown = capsys.readouterr()
    assert shown.out.startswith("Submission 7 of ps1: 5 / 6 points.\n") and shown.err == ""
    fake.answer("POST", 404, {})
    submit()
    shown = capsys.readouterr()
    assert shown.out == "" and shown.err.startswith("The service at ")
    assert "Traceback" not in shown.err


class Kernel:
    """What ``submit`` reads of IPython in a kernel: the inputs so far (the cell running
    ``submit`` last) and where rich output goes."""

    kernel = object()

    def __init__(self, inputs: list[str]) -> None:
        self.history_manager = type("History", (), {"input_hist_parsed": ["", *inputs]})()
        self.published: list[dict[str, str]] = []
        self.display_pub = type("Publisher", (), {"publish": self.published.append})()


@pytest.mark.parametrize(
    ("counts", "ran", "stopped"),
    [
        pytest.param([1], "answer = False", False, id="saved-after-cell-1"),
        pytest.param([], "answer = None", True, id="an-edit-unsaved"),
    ],
)
def test_in_a_kernel_the_feedback_is_rich_output_and_unsaved_work_is_stopped(
    fake: FakeService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
    counts: list[int],
    ran: str,
    stopped: bool,
) -> None:
    from graders.notebook import submit as submit_module

    graded_service(fake)
    monkeypatch.setenv("GRADERS_TOKEN", ADA)
    path = run_and_saved(released_notebook(tmp_path, service=fake.url), counts)
    kernel = Kernel([ran, SUBMIT_CELL])
    monkeypatch.setattr(submit_module, "running_shell", lambda: kernel)
    submit(path)
    said = capsys.readouterr()
    if stopped:
        assert kernel.published == [] and fake.requests == []
        assert said.err.startswith("Nothing was submitted: ps1.ipynb on disk is not what you ran")
        submit(path, anyway=True)
        said = capsys.readouterr()
        assert said.err.startswith("Handing in ps1.ipynb as it was saved")
    else:
        assert said.err == ""
    (shown,) = kernel.published
    assert shown["text/plain"].startswith("Submission 7 of ps1: 5 / 6 points.\n")
    assert shown["text/html"].startswith('<div class="graders-feedback" lang="en"><p>Submission 7')
    assert said.out == ""


def test_the_command_prints_the_feedback_and_exits_1_when_nothing_was_graded(
    fake: FakeService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graded_service(fake)
    monkeypatch.setenv("GRADERS_TOKEN", ADA)
    path = released_notebook(tmp_path, service=fake.url)
    done = CliRunner().invoke(main, ["submit", str(path)])
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("Submission 7 of ps1: 5 / 6 points.\n")
    fake.answer("POST", 429, {"reason": "attempt-limit"}, {"Retry-After": "60"})
    done = CliRunner().invoke(main, ["submit", str(path)])
    assert done.exit_code == 1
    assert done.stderr == (  # the sentence alone, in the notebook's language
        "You have used all your attempts at ps1: nothing was submitted, and your grade "
        "of record stays as it is.\n"
    )


def test_release_with_a_service_ends_with_the_submit_cell(tmp_path: Path) -> None:
    loaded = load_course(small_course(tmp_path / "course") / "course.yml")
    ps1 = loaded.course.assignments[0]
    nb = student_notebook(loaded, ps1, service="https://grading.example.edu/course/")
    assert nb.metadata["graders"]["service"] == "https://grading.example.edu/course"
    assert nb.cells[-2].source.startswith("## Submit\n")
    assert (nb.cells[-1].cell_type, nb.cells[-1].source) == ("code", SUBMIT_CALL)
    assert "graders" not in nb.cells[-1].metadata  # not an answer cell
    assert "service" not in student_notebook(loaded, ps1).metadata["graders"]


def test_release_refuses_a_service_that_is_not_an_address(tmp_path: Path) -> None:
    root = small_course(tmp_path / "course")
    done = CliRunner().invoke(
        main, ["release", "ps1", "--course", str(root), "--service", "grading.example.edu"]
    )
    assert done.exit_code == 2
    assert done.stderr == (
        "error: --service: 'grading.example.edu' is not an http:// or https:// address\n"
    )


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG folder is Linux's")
def test_the_config_folder_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config_folder() == tmp_path / ".config" / "graders"


def test_a_verdict_is_punctuated_as_its_language_writes() -> None:
    from graders.i18n import speaking
    from graders.notebook.submit_report import Review

    missed = Review("Question 1.1", "wrong", 0.0, 1.0, "", None)
    with speaking("zh"):
        assert missed.verdict() == "不正确，0 / 1"
    with speaking("en"):
        assert missed.verdict() == "not correct, 0 / 1"
