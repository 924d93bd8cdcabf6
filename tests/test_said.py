"""What graders tells a learner is data, rendered in each reader's language (``graders.said``).

Feedback is stored as parts: graders' own messages by id with their fields, the author's
texts by reference, literals. One results document, written once, gives an English reader
English and a Chinese reader Chinese, the author's paragraphs included, however many
messages the process made before and in whatever order the readers come. A document of
the previous schema (strings, with graders' sentences in other languages beside them) is
upgraded when it is read. The sandbox's verdicts come with their sentence and values, and
every sentence is one of the catalogue's.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from graders.answers.parse import AnswerSyntaxError, read_answer
from graders.course.learner_language import LearnerLanguages
from graders.course.model import Shown
from graders.course.visibility import question_for
from graders.i18n import speaking
from graders.kinds.code.sandbox_words import SENTENCES, said_by_sandbox
from graders.results import SCHEMA, QuestionResult, ResultsDocument, Status, StudentResult
from graders.said import (
    Message,
    Text,
    authored,
    capitalized,
    from_json,
    joined,
    paragraphs,
    render,
    say,
    say_n,
    to_json,
    told,
)
from graders.sandbox import verdict
from graders.sandbox.protocol import FrameError, decode_line
from graders.sandbox.words import Words
from graders.workspace import load

REPO = Path(__file__).resolve().parent.parent
SCHEMA_1 = Path(__file__).parent / "data" / "results-schema-1.json"  # written by schema 1's code
EXERCISE = "data-vs-detach"  # of ps2, in English and Chinese, with variants


def test_a_message_is_written_in_the_language_of_whoever_reads_it() -> None:
    said = say("it has more than {limit} elements", limit=7)
    assert render(said, "en") == "it has more than 7 elements"
    assert render(said, "zh") == "它的元素超过 7 个"
    with speaking("zh"):  # str() is for the instructor's own output, in the language spoken
        assert str(said) == "它的元素超过 7 个"


def test_a_field_that_is_a_message_is_translated_and_any_other_is_written_as_is() -> None:
    # "it is empty" is a sentence of the catalogue, but as the learner's text it stays.
    reason = say("{answer} is not a number", answer="it is empty")
    outer = say("Could not read this answer: {reason}. {forms}.", reason=reason, forms="X")
    assert render(outer, "zh") == "无法读取这个答案：it is empty 不是数字。X。"


def test_plural_forms_joined_and_capitalised_parts_are_rendered_per_reader() -> None:
    lines = say_n("{lines} and {count} more line", "{lines} and {count} more lines", 3, lines="`a`")
    assert (render(lines, "en"), render(lines, "zh")) == ("`a` and 3 more lines", "`a` 及另外 3 行")
    both = joined([say("it is empty"), "`x = 1`"])
    assert (render(both, "en"), render(both, "zh")) == ("it is empty; `x = 1`", "它是空的；`x = 1`")
    assert render(capitalized(say("it is empty")), "en") == "It is empty"


def test_a_checker_may_add_text_to_a_message_as_to_a_string() -> None:
    added = "Case 2: " + say("it is empty") + " Look again."
    assert render(added, "zh") == "Case 2: 它是空的 Look again."


@pytest.mark.parametrize(
    "part",
    [
        say("Got {answer}, expected {truth}.", answer="3", truth="4"),
        say_n("{lines} and {count} more line", "{lines} and {count} more lines", 2, lines="a"),
        paragraphs(authored(EXERCISE, ("questions", 0, "explain"), "Why."), "torch said: 3"),
        joined([say("it is empty"), "`x`"]),
        capitalized(say("{what} raised {cls}", what=say("it is empty"), cls="ValueError")),
    ],
    ids=["message", "plural", "authored-and-literal", "joined", "cased"],
)
def test_every_part_comes_back_from_its_json(part: object) -> None:
    again = from_json(json.loads(json.dumps(to_json(part))))  # type: ignore[arg-type]
    assert again == part
    assert render(again, "zh") == render(part, "zh")  # type: ignore[arg-type]


def _unreadable() -> AnswerSyntaxError:
    with pytest.raises(AnswerSyntaxError) as caught:
        read_answer("(False, True")
    return caught.value


def _document() -> ResultsDocument:
    """ada's results of ps2's first exercise: a misconception matched, an answer that could
    not be read, a note on how she wrote a constant, as grading stores them."""
    loaded = load(REPO)
    asked = loaded.exercises[EXERCISE].variants[5].exercise  # the variant she was asked
    q, second = asked.questions[0], asked.questions[1]
    wrong = paragraphs(
        authored(
            EXERCISE, ("questions", 0, "misconceptions", 0, "explain"), q.misconceptions[0].explain
        ),
        authored(EXERCISE, ("questions", 0, "explain"), q.explain),
        say("Got {answer}, expected {truth}.", answer="(True, True)", truth="(False, False)"),
    )
    unread = paragraphs(
        told(_unreadable()), authored(EXERCISE, ("questions", 1, "explain"), second.explain)
    )
    questions = (
        QuestionResult(
            f"{EXERCISE}/{q.id}",
            Status.WRONG,
            0,
            1,
            "(True, True)",
            "(False, False)",
            wrong,
            variant="6",
        ),
        QuestionResult(
            f"{EXERCISE}/{second.id}",
            Status.INVALID,
            0,
            1,
            "(False, True",
            "x",
            unread,
            variant="6",
        ),
    )
    ada = StudentResult("ada", questions)
    doc = ResultsDocument("autograd", "ps2", None, None, None, (ada,))
    return ResultsDocument.parse(doc.dumps())  # as a later command reads it


def test_one_document_gives_each_reader_their_language_with_no_memory_between_them() -> None:
    doc = _document()
    loaded = load(REPO)
    zh_course = loaded.in_language("zh").exercises[EXERCISE].variants[5].exercise
    en_course = loaded.exercises[EXERCISE].variants[5].exercise
    languages = LearnerLanguages(loaded, "ps2")
    (ada,) = doc.students

    def pages() -> tuple[list[str], list[str]]:
        # Interleaved, as a service answering two learners at once writes them.
        en, zh = [], []
        for _ in range(2):
            en.append(str(languages.result_in(ada, "en").questions[0].feedback))
            zh.append(str(languages.result_in(ada, "zh").questions[0].feedback))
        return en, zh

    en, zh = pages()
    assert en[0] == en[1] and zh[0] == zh[1]
    assert zh_course.questions[0].misconceptions[0].explain.strip() in zh[0]
    assert zh_course.questions[0].explain.strip() in zh[0] and "得到 (True, True)" in zh[0]
    assert en_course.questions[0].explain.strip() in en[0] and "Got (True, True)" in en[0]
    assert not any(word in zh[0] for word in ("Got", "expected", "cut off"))
    unread = str(languages.result_in(ada, "zh").questions[1].feedback)
    assert (
        unread.startswith("无法读取这个答案：其中有未闭合的括号") and "(False, True" not in unread
    )

    # Many thousands of distinct messages later (a class's unreadable answers), nothing the
    # pages read was lost or changed: they read the document, not something remembered.
    for n in range(70_000):
        render(say("it has more than {limit} elements", limit=n), "zh")
    assert pages() == (en, zh)


def test_what_a_learner_may_not_see_yet_is_no_part_of_the_page() -> None:
    q = _document().students[0].questions[0]
    checks = question_for(q, Shown.CHECKS)
    assert not any(
        isinstance(p, Message) and p.msgid.startswith("Got") for p in checks.feedback.parts
    )
    assert question_for(q, Shown.SCORE).feedback == Text()


def test_a_document_of_the_previous_schema_is_upgraded_when_it_is_read() -> None:
    text = SCHEMA_1.read_text(encoding="utf-8")
    assert "schema" not in json.loads(text)  # schema 1 wrote no version
    doc = ResultsDocument.parse(text)
    ada, bob = doc.students
    unread = next(q for q in ada.questions if q.status is Status.INVALID)
    # graders' sentence, kept in Chinese by schema 1, is shown in Chinese; the author's
    # paragraph was a string in English, and stays a literal in the language it was written in.
    zh = render(unread.feedback, "zh")
    assert zh.startswith("无法读取这个答案：其中有未闭合的括号")
    assert "Both are cut off from `x`'s computation history" in zh
    assert render(unread.feedback, "en").startswith("Could not read this answer")
    assert "YAML 无效" in render(bob.error, "zh") and "invalid YAML" in render(bob.error, "en")
    again = json.loads(doc.dumps())
    assert again["schema"] == SCHEMA and all("said" not in s for s in again["students"])
    assert ResultsDocument.parse(doc.dumps()) == doc


def test_a_document_of_a_newer_schema_is_refused() -> None:
    newer = json.loads(SCHEMA_1.read_text(encoding="utf-8")) | {"schema": SCHEMA + 1}
    with pytest.raises(ValueError, match="not a schema this graders reads"):
        ResultsDocument.parse(json.dumps(newer))


SANDBOX_VERDICTS: list[Callable[[], verdict.StepOutcome]] = [
    lambda: verdict.from_end("internal", "no fork server"),
    lambda: verdict.timed_out(2.5),
    lambda: verdict.used_too_much_cpu(1.0),
    lambda: verdict.flooded("stderr", 16 << 20),
    lambda: verdict.died(0, "1280 MiB"),
    lambda: verdict.died(signal.SIGSEGV),
    lambda: verdict.died(signal.SIGKILL),
    lambda: verdict.died(signal.SIGXCPU),
    lambda: verdict.died(signal.SIGUSR1),
    lambda: verdict.died(verdict.EXIT_CHANNEL_LOST << 8),
    lambda: verdict.died(verdict.EXIT_SETUP_FAILED << 8),
    lambda: verdict.died(3 << 8),
    lambda: verdict.died(0),
    lambda: verdict.checked(verdict.from_end("ok", {}), _forged, {}),
    lambda: verdict.channel_abuse(_frame_error(b'{"end": 0, "ok": NaN}')),
    lambda: verdict.channel_abuse(_frame_error(b'{"end": 0, "seal": "s", "ok": 1}')),
    lambda: verdict.channel_abuse(_frame_error(b'{"end": 0, "ok": {}')),
    lambda: verdict.channel_abuse(_frame_error(b'{"end": 0, "seal": "s", "error": 1}')),
    lambda: verdict.channel_abuse(_frame_error(b"[" * 200 + b"]" * 200)),
]


def _forged(payload: object, result: object) -> dict[str, object]:
    raise ValueError("no 'cases'")


def _frame_error(line: bytes) -> Words:
    try:
        decode_line(line, 0, "s")
    except FrameError as exc:
        return exc.words
    raise AssertionError(f"{line!r} was read")


@pytest.mark.parametrize("made", SANDBOX_VERDICTS)
def test_every_sentence_of_the_sandbox_is_one_of_the_catalogue(
    made: Callable[[], verdict.StepOutcome],
) -> None:
    made_verdict = made()
    assert made_verdict.words is not None and str(made_verdict.words) == made_verdict.message
    said = said_by_sandbox(made_verdict.words)
    assert isinstance(said, Message) and render(said, "en") == made_verdict.message
    assert render(said, "zh") != made_verdict.message


def test_every_signal_the_sandbox_explains_is_in_the_catalogue() -> None:
    hints = verdict._SIGNAL_HINTS.values()  # noqa: SLF001 - the sandbox's own table
    assert set(hints) <= set(SENTENCES)


def test_a_sentence_the_catalogue_does_not_know_stays_as_the_sandbox_wrote_it() -> None:
    new = said_by_sandbox(Words("something new happened after {n} s", {"n": "2"}))
    assert new == "something new happened after 2 s"


def test_a_child_s_own_text_is_never_taken_for_a_sentence_of_the_sandbox_s() -> None:
    # Learner code can make a task report any text, a sandbox sentence's English included:
    # it stays the child's text, with no words to be said again as the sandbox's.
    impersonated = verdict.from_end("error", "the code was killed by SIGKILL")
    assert impersonated.words is None


def test_remembered_readings_follow_the_language_spoken() -> None:
    with speaking("zh"):
        zh_notes = read_answer("true").notes
    assert [render(n, "zh") for n in zh_notes] == ["把 `true` 读作 `True`，这是 Python 的写法。"]
    assert [render(n, "en") for n in zh_notes] == [
        "Read `true` as `True`, the way Python writes it."
    ]
