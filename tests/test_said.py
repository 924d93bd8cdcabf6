"""graders' own sentences are said once and kept in every language (``graders.said``).

A sentence said while grading comes back in Chinese on a Chinese page: the result keeps
it (``QuestionResult.said``), a field that is itself a sentence is translated with it,
and anything the learner wrote stays exactly as written. The sandbox's verdicts come with
their sentence and values, and every sentence is one of the catalogue's.
"""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest

from graders.answers.parse import AnswerSyntaxError, read_answer
from graders.course.learner_language import translated
from graders.course.model import Shown
from graders.course.visibility import question_for
from graders.i18n import speaking
from graders.kinds.code.sandbox_words import SENTENCES, said_by_sandbox
from graders.results import QuestionResult, Status, StudentResult
from graders.said import Said, joined, said_in, say, say_n
from graders.sandbox import verdict
from graders.sandbox.protocol import FrameError, decode_line
from graders.sandbox.words import Words


def test_a_sentence_is_said_in_the_language_spoken_and_kept_in_the_others() -> None:
    said = say("it has more than {limit} elements", limit=7)
    assert said == "it has more than 7 elements"
    assert said.in_languages["zh"] == "它的元素超过 7 个"
    with speaking("zh"):
        assert say("it is empty") == "它是空的"
        assert say("it is empty").in_languages["en"] == "it is empty"


def test_a_field_that_was_said_is_translated_and_any_other_is_written_as_is() -> None:
    # "it is empty" is a sentence of the catalogue, but as the learner's text it stays.
    reason = say("{answer} is not a number", answer="it is empty")
    outer = say("Could not read this answer: {reason}. {forms}.", reason=reason, forms="X")
    assert outer.in_languages["zh"] == "无法读取这个答案：it is empty 不是数字。X。"


def test_plural_forms_and_joined_parts_keep_their_translations() -> None:
    lines = say_n("{lines} and {count} more line", "{lines} and {count} more lines", 3, lines="`a`")
    assert lines == "`a` and 3 more lines" and lines.in_languages["zh"] == "`a` 及另外 3 行"
    both = joined([say("it is empty"), "`x = 1`"])
    assert both == "it is empty; `x = 1`" and both.in_languages["zh"] == "它是空的; `x = 1`"


def test_the_lines_of_a_feedback_that_graders_said_are_found_with_their_translation() -> None:
    with pytest.raises(AnswerSyntaxError) as caught:
        read_answer("(False, True")
    feedback = f"The author's own explanation.\n{caught.value}"
    found = said_in([feedback, None], ("en", "zh"))
    assert found is not None and list(found) == ["zh"]
    assert list(found["zh"]) == [str(caught.value)]  # the author's line is not graders'
    assert found["zh"][str(caught.value)].startswith(
        "无法读取这个答案：其中有未闭合的括号：`(` 没有闭合。"
    )
    assert said_in(["The author's own explanation."], ("en", "zh")) is None


def test_remembered_readings_follow_the_language_spoken() -> None:
    with speaking("zh"):
        zh_notes = read_answer("true").notes
    en_notes = read_answer("true").notes
    assert zh_notes == ("把 `true` 读作 `True`，这是 Python 的写法。",)
    assert en_notes == ("Read `true` as `True`, the way Python writes it.",)


def _result(feedback: str, explain: str) -> QuestionResult:
    said = said_in([feedback, explain], ("en", "zh"))
    return QuestionResult(
        "ex/q", Status.WRONG, 0.0, 1.0, "3", "4", feedback, explain=explain, said=said
    )


def test_a_chinese_page_shows_graders_sentences_in_chinese_and_the_answer_as_written() -> None:
    got = say("Got {answer}, expected {truth}.", answer="3", truth="4")
    q = _result(f"Think about it.\n{got}", "Think about it.")
    shown = translated(StudentResult("ada", (q,)), {"Think about it.": "想一想。"}, "zh")
    assert shown.questions[0].feedback == "想一想。\n得到 3，期望的是 4。"
    assert shown.questions[0].answer == "3"
    english = translated(StudentResult("ada", (q,)), {}, "en").questions[0]
    assert english.feedback == q.feedback


def test_what_a_learner_may_not_see_yet_leaves_no_translation_behind() -> None:
    got = say("Got {answer}, expected {truth}.", answer="3", truth="4")
    note = say("it is empty")
    q = _result(f"{got}\n{note}", str(note))
    assert q.said is not None and str(got) in q.said["zh"]
    checks = question_for(q, Shown.CHECKS)
    assert checks.said == {"zh": {str(note): "它是空的"}}
    assert question_for(q, Shown.SCORE).said is None
    assert q.to_json()["said"] == q.said


SANDBOX_VERDICTS: list[Callable[[], verdict.Verdict]] = [
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
    made: Callable[[], verdict.Verdict],
) -> None:
    made_verdict = made()
    assert made_verdict.words is not None and str(made_verdict.words) == made_verdict.message
    said = said_by_sandbox(made_verdict.words)
    assert said == made_verdict.message
    assert isinstance(said, Said) and said.in_languages["zh"] != made_verdict.message


def test_every_signal_the_sandbox_explains_is_in_the_catalogue() -> None:
    hints = verdict._SIGNAL_HINTS.values()  # noqa: SLF001 - the sandbox's own table
    assert set(hints) <= set(SENTENCES)


def test_a_sentence_the_catalogue_does_not_know_stays_as_the_sandbox_wrote_it() -> None:
    new = said_by_sandbox(Words("something new happened after {n} s", {"n": "2"}))
    assert new == "something new happened after 2 s" and not isinstance(new, Said)


def test_a_child_s_own_text_is_never_taken_for_a_sentence_of_the_sandbox_s() -> None:
    # Learner code can make a task report any text, a sandbox sentence's English included:
    # it stays the child's text, with no words to be said again as the sandbox's.
    impersonated = verdict.from_end("error", "the code was killed by SIGKILL")
    assert impersonated.words is None
