"""`graders serve` as learners meet it: a real uvicorn process on a free loopback port, a real
SQLite gradebook file, the real sandbox, the repository's ps1 released and filled in, and
every request over HTTP.

A key notebook comes back with full marks; another learner's submission is 404; a learner
reading the class is 403; past the attempt limit it is 429 with Retry-After; 60 learners
uploading at once are all graded right. Restarts (``kill -9``, SIGTERM) and PostgreSQL are
`test_service_restart.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from service_helpers import (
    ServedCourse,
    ServerProcess,
    bearer,
    graded,
    mint,
    repository_course,
    upload,
)
from what_starts import starts

pytest.importorskip("uvicorn", reason="needs graders' serve extra")

LEARNERS = [f"learner{i:02d}" for i in range(60)]
MAX_ATTEMPTS = 3


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> ServedCourse:
    return repository_course(
        tmp_path_factory.mktemp("served"), submissions=f"{{max: {MAX_ATTEMPTS}}}"
    )


@pytest.fixture(scope="module")
@starts("server")
def server(course: ServedCourse) -> Iterator[ServerProcess]:
    with ServerProcess(course.root, f"sqlite:///{course.root / 'served.db'}", workers=2) as s:
        yield s
    assert s.returncode == 0, s.log()  # SIGTERM: a clean stop


@pytest.fixture(scope="module")
def people(course: ServedCourse, server: ServerProcess) -> dict[str, str]:
    found = mint(course.root, "ada", "bob", "cy", *LEARNERS, db_url=server.db_url)
    return found | mint(course.root, "prof", db_url=server.db_url, instructor=True)


@pytest.fixture
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def _sent(client: httpx.Client, token: str, course: ServedCourse, **answers: str) -> int:
    answer = upload(client, token, course.notebook(answers))
    assert answer.status_code == 202, answer.text
    return int(answer.json()["id"])


def test_a_key_notebook_comes_back_with_full_marks(
    course: ServedCourse, client: httpx.Client, people: dict[str, str]
) -> None:
    done = graded(client, people["ada"], _sent(client, people["ada"], course))
    assert done["status"] == "graded" and done["grade_status"] == "graded"
    assert done["score"] == done["max_score"] > 40
    assert {q["status"] for q in done["questions"]} == {"correct"}
    assert len(done["questions"]) == len([k for k in course.key if "/" in k]) + 4  # 4 checks


def test_another_learners_submission_is_404(
    course: ServedCourse, client: httpx.Client, people: dict[str, str]
) -> None:
    mine = _sent(client, people["bob"], course)
    assert client.get(f"/api/submissions/{mine}", headers=bearer(people["cy"])).status_code == 404
    assert client.get(f"/api/submissions/{mine}", headers=bearer(people["bob"])).status_code == 200


def test_a_learner_cannot_read_the_class(client: httpx.Client, people: dict[str, str]) -> None:
    assert (
        client.get("/api/assignments/ps1/grades", headers=bearer(people["bob"])).status_code == 403
    )
    assert (
        client.get("/api/assignments/ps1/grades", headers=bearer(people["prof"])).status_code == 200
    )


def test_the_attempt_limit_is_429_with_retry_after(
    course: ServedCourse, client: httpx.Client, people: dict[str, str]
) -> None:
    cy = people["cy"]
    sent = [_sent(client, cy, course) for _ in range(MAX_ATTEMPTS)]
    refused = upload(client, cy, course.notebook(), **{"Accept-Language": "zh"})
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) > 0
    assert refused.json()["error"] == f"你在 ps1 上的 {MAX_ATTEMPTS} 次提交机会已经用完。"
    assert [graded(client, cy, i)["status"] for i in sent] == ["graded"] * MAX_ATTEMPTS


def test_sixty_learners_uploading_at_once_are_all_graded_right(
    course: ServedCourse, client: httpx.Client, people: dict[str, str], server: ServerProcess
) -> None:
    # Half hand in the key; the other half get one prediction wrong.
    question = next(k for k, v in course.key.items() if v in ("True", "False"))
    flipped = {question: "True" if course.key[question] == "False" else "False"}

    def hand_in(index: int) -> tuple[str, int]:
        name = LEARNERS[index]
        with httpx.Client(base_url=server.url, timeout=120) as own:
            answer = upload(own, people[name], course.notebook(flipped if index % 2 else None))
        assert answer.status_code == 202, answer.text
        return name, int(answer.json()["id"])

    with ThreadPoolExecutor(len(LEARNERS)) as pool:
        sent = dict(pool.map(hand_in, range(len(LEARNERS))))
    assert len(set(sent.values())) == len(LEARNERS)
    done = {name: graded(client, people[name], i, timeout=600) for name, i in sent.items()}
    top = done[LEARNERS[0]]["max_score"]
    wanted = {name: top - (1.0 if i % 2 else 0.0) for i, name in enumerate(LEARNERS)}
    assert {name: d["score"] for name, d in done.items()} == wanted
    assert all(d["status"] == "graded" for d in done.values())
    # The class's grades of record are those, each counting that one attempt.
    grades = client.get("/api/assignments/ps1/grades", headers=bearer(people["prof"])).json()
    mine = {g["student"]: (g["score"], g["attempts"], g["counted_id"]) for g in grades}
    assert {n: mine[n] for n in LEARNERS} == {n: (wanted[n], 1, sent[n]) for n in LEARNERS}
    # One log line per submission.
    lines = [line for line in server.log().splitlines() if " graders.service: submission " in line]
    for name, attempt in sent.items():
        assert sum(f"submission {attempt} {name} ps1 graded" in line for line in lines) == 1
