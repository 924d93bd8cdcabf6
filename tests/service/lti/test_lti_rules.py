"""The rules of LTI 1.3 that need no LMS: roles, the scores URL of a line item, the score
sent (never above the maximum), the learner id of an LMS user, the launch's language, and
which URLs are the tool's own (a launch's ``target_link_uri`` must be one)."""

from __future__ import annotations

import pytest

pytest.importorskip("joserfc", reason="needs graders' serve extra")

from graders.results import QuestionResult, ResultsDocument, Status, StudentResult  # noqa: E402
from graders.service.lti.messages import of_tool  # noqa: E402
from graders.service.lti.passback import score_given, scores_url  # noqa: E402
from graders.service.lti.people import role_of  # noqa: E402

LIS = "http://purl.imsglobal.org/vocab/lis/v2/"


@pytest.mark.parametrize(
    ("roles", "role"),
    [
        pytest.param([LIS + "membership#Learner"], "learner", id="learner"),
        pytest.param([LIS + "membership#Instructor"], "instructor", id="instructor"),
        pytest.param(
            [LIS + "membership/Instructor#TeachingAssistant"], "instructor", id="teaching-assistant"
        ),
        pytest.param([LIS + "membership#ContentDeveloper"], "instructor", id="content-developer"),
        pytest.param(["Instructor"], "instructor", id="short-form"),
        pytest.param(
            [LIS + "institution/person#Administrator", LIS + "membership#Learner"],
            "learner",
            id="an-institution-role-is-not-this-course",
        ),
        pytest.param([LIS + "institution/person#Instructor"], "learner", id="teaches-elsewhere"),
        pytest.param([], "learner", id="none"),
    ],
)
def test_a_role_in_the_course_decides(roles: list[str], role: str) -> None:
    assert role_of(roles) == role


@pytest.mark.parametrize(
    ("line_item", "scores"),
    [
        pytest.param(
            "https://lms.example.org/api/lti/courses/1/line_items/7",
            "https://lms.example.org/api/lti/courses/1/line_items/7/scores",
            id="plain",
        ),
        pytest.param(
            "https://lms.example.org/mod/lti/services.php/2/lineitems/9/lineitem?type_id=3",
            "https://lms.example.org/mod/lti/services.php/2/lineitems/9/lineitem/scores?type_id=3",
            id="moodle-query-kept",
        ),
        pytest.param(
            "https://lms.example.org/items/7/?a=1&b=2",
            "https://lms.example.org/items/7/scores?a=1&b=2",
            id="trailing-slash",
        ),
    ],
)
def test_the_scores_url_is_the_line_items_path_and_scores(line_item: str, scores: str) -> None:
    assert scores_url(line_item) == scores


TOOL = "https://grading.example.edu/graders"  # --base-url, with a path prefix


@pytest.mark.parametrize(
    ("url", "ours"),
    [
        pytest.param(f"{TOOL}/lti/launch", True, id="the-launch"),
        pytest.param(f"{TOOL}/assignments/ps1?x=1#top", True, id="a-page-of-the-tool"),
        pytest.param(TOOL, True, id="the-base-itself"),
        pytest.param("HTTPS://Grading.Example.EDU:443/graders/lti/launch", True, id="same-origin"),
        pytest.param("https://grading.example.edu/other/lti/launch", False, id="outside-the-path"),
        pytest.param("https://grading.example.edu/graders-old/lti", False, id="a-lookalike-path"),
        pytest.param(f"{TOOL}/../admin", False, id="dot-dot"),
        pytest.param(f"{TOOL}/%2e%2e/admin", False, id="encoded-dot-dot"),
        pytest.param("http://grading.example.edu/graders/lti/launch", False, id="another-scheme"),
        pytest.param("https://grading.example.edu:8443/graders/lti", False, id="another-port"),
        pytest.param("https://evil.example.org/graders/lti/launch", False, id="another-host"),
        pytest.param(
            "https://grading.example.edu.evil.example.org/graders/lti", False, id="host-as-prefix"
        ),
        pytest.param("https://ada@grading.example.edu/graders/lti", False, id="a-user-part"),
        pytest.param(
            "https://grading.example.edu@evil.example.org/graders/lti", False, id="a-user-lookalike"
        ),
        pytest.param("https://grading.example.edu:x/graders/lti", False, id="no-port-number"),
        pytest.param("/graders/lti/launch", False, id="relative"),
        pytest.param("javascript:alert(1)", False, id="not-a-web-url"),
    ],
)
def test_a_url_of_the_tool_is_on_its_origin_and_within_its_path(url: str, ours: bool) -> None:
    assert of_tool(url, TOOL) is ours


def _doc(points: float, max_points: float, late_factor: float = 1.0) -> ResultsDocument:
    question = QuestionResult("ex/q", Status.CORRECT, points, max_points, "1", "1", "")
    ada = StudentResult("ada", (question,), late_factor=late_factor)
    return ResultsDocument("course", "ps1", None, None, None, (ada,))


@pytest.mark.parametrize(
    ("doc", "maximum", "given"),
    [
        pytest.param(_doc(5, 6), 6.0, 5.0, id="as-graded"),
        pytest.param(_doc(6, 6, late_factor=0.75), 6.0, 4.5, id="after-the-late-policy"),
        pytest.param(_doc(3, 6), 100.0, 50.0, id="scaled-to-the-line-items-points"),
        pytest.param(_doc(8, 6), 6.0, 6.0, id="an-override-above-the-maximum-is-capped"),
    ],
)
def test_the_score_sent_is_never_above_the_maximum(
    doc: ResultsDocument, maximum: float, given: float
) -> None:
    assert score_given(doc, "ada", maximum) == given


def test_no_grade_is_nothing_to_send() -> None:
    assert score_given(_doc(5, 6), "bob", 6.0) is None


@pytest.mark.parametrize(
    ("scheme", "attributes"),
    [
        pytest.param("https", {"secure", "samesite=none", "partitioned", "httponly"}, id="https"),
        pytest.param("http", {"samesite=lax", "httponly"}, id="plain-http"),
    ],
)
def test_the_session_cookie_of_a_launch_reaches_a_frame(scheme: str, attributes: set[str]) -> None:
    from starlette.requests import Request
    from starlette.responses import Response

    from graders.service.lti.launch import _sign_in

    request = Request(
        {"type": "http", "scheme": scheme, "server": ("tool", 443), "path": "/", "headers": []}
    )
    response = Response()
    _sign_in(request, response, "secret")
    cookie = response.headers["set-cookie"].lower()
    parts = {p.strip() for p in cookie.split(";")}
    assert {
        a
        for a in ("secure", "samesite=none", "samesite=lax", "partitioned", "httponly")
        if a in parts
    } == attributes
