"""The rules of a review request, as the gradebook keeps them (``gradebook.requests``): the
window, the limit, full marks, one open request per question, a reason of bounded length;
each refusal a sentence, and an answered request answered once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graders.course.model import RegradeRequestPolicy
from graders.errors import UsageError
from graders.gradebook import requests as review
from graders.gradebook.store import open_gradebook
from graders.results import QuestionResult, Status

OPENED = datetime(2036, 10, 10, 12, 0, tzinfo=UTC)
WRONG = QuestionResult("ex/q", Status.WRONG, 0.0, 1.0, "True", "False")
RIGHT = QuestionResult("ex/r", Status.CORRECT, 1.0, 1.0, "False", "False")
POLICY = RegradeRequestPolicy(per_assignment=2, window_days=7)


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    return open_gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}")


def asked(
    question: QuestionResult | None = WRONG,
    *,
    days: float = 1,
    reason: str = "why",
    q: str = "ex/q",
) -> review.Asked:
    return review.Asked("ps1", "ada", 7, q, reason, question, OPENED, OPENED + timedelta(days=days))


def refusal(engine, policy, request: review.Asked) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(review.RequestRefused) as refused:
        review.ask(engine, "c", policy, request)
    return str(refused.value)


def test_each_rule_refuses_with_a_sentence(engine) -> None:  # type: ignore[no-untyped-def]
    assert refusal(engine, None, asked()) == "This course takes no review requests."
    assert "closed at 2036-10-17T12:00" in refusal(engine, POLICY, asked(days=7.5))
    assert "full marks already" in refusal(engine, POLICY, asked(RIGHT, q="ex/r"))
    assert "no question ex/none" in refusal(engine, POLICY, asked(None, q="ex/none"))
    assert "at most 2000 characters" in refusal(engine, POLICY, asked(reason="x" * 2001))
    made = review.ask(engine, "c", POLICY, asked(days=6.9))
    assert made.status == review.OPEN and made.reason == "why"
    assert "asked about ex/q already" in refusal(engine, POLICY, asked())
    review.answer(engine, "c", made.id, review.DECLINED, "the key is right", "prof")
    review.ask(engine, "c", POLICY, asked())  # answered: the question may be asked again
    assert "all 2 review requests for ps1" in refusal(engine, POLICY, asked())


def test_an_answered_request_is_answered_once_and_needs_a_reason(engine) -> None:  # type: ignore[no-untyped-def]
    made = review.ask(engine, "c", POLICY, asked())
    with pytest.raises(UsageError, match="say why"):
        review.answer(engine, "c", made.id, review.DECLINED, "  ", "prof")
    review.answer(engine, "c", made.id, review.DECLINED, "no", "prof")
    with pytest.raises(UsageError, match="declined already"):
        review.answer(engine, "c", made.id, review.REGRADED, "yes", "prof")
    with pytest.raises(UsageError, match="no review request 99"):
        review.answer(engine, "c", 99, review.DECLINED, "no", "prof")
