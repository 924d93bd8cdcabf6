"""`graders.submit()` against `graders serve` itself: a real uvicorn process on a free
loopback port, the repository's ps1 released with `graders release --service`, filled in.

A kernel (nbclient) runs the released notebook top to bottom, its last cell the
`graders.submit()` the release wrote, and its output carries the score; the service holds
the attempt. The service's own refusals read as the learner reads them: the attempt limit
and a token the service does not know.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import nbformat
import pytest
from nbclient import NotebookClient
from notebook_helpers import fill, load_nb, save_nb
from service_helpers import (
    ServedCourse,
    ServerProcess,
    bearer,
    environment,
    graders,
    mint,
    repository_course,
)
from what_starts import starts

from graders.errors import SubmitError
from graders.notebook.release import SUBMIT_CALL
from graders.notebook.submit import submit_notebook
from graders.notebook.tokens import TokenStore

pytest.importorskip("uvicorn", reason="needs graders' serve extra")

MAX_ATTEMPTS = 2


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> ServedCourse:
    return repository_course(
        tmp_path_factory.mktemp("submit-live"), submissions=f"{{max: {MAX_ATTEMPTS}}}"
    )


@pytest.fixture(scope="module")
@starts("server")
def server(course: ServedCourse) -> Iterator[ServerProcess]:
    with ServerProcess(course.root, f"sqlite:///{course.root / 'live.db'}", workers=1) as s:
        yield s
    assert s.returncode == 0, s.log()


@pytest.fixture(scope="module")
def people(course: ServedCourse, server: ServerProcess) -> dict[str, str]:
    return mint(course.root, "ada", "bea", db_url=server.db_url)


@pytest.fixture(scope="module")
def released(course: ServedCourse, server: ServerProcess) -> dict[str, object]:
    """ps1 as `graders release ps1 --service URL` writes it (with the truths cached)."""
    out = course.root / "release"
    done = graders("release", "ps1", "--service", server.url, "--out", str(out), cwd=course.root)
    assert done.returncode == 0, done.stderr
    return load_nb(out / "ps1" / "ps1.ipynb")


@pytest.fixture(autouse=True)
def own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("GRADERS_TOKEN", raising=False)
    monkeypatch.delenv("GRADERS_SERVICE", raising=False)


def test_a_kernel_runs_the_release_top_to_bottom_and_submits(
    course: ServedCourse,
    server: ServerProcess,
    people: dict[str, str],
    released: dict[str, object],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nb = fill(released, course.key)
    assert nb["cells"][-1]["source"] == SUBMIT_CALL  # the release's own last cell
    work = tmp_path / "work"
    save_nb(nb, work / "ps1.ipynb")
    # The kernel's graders is this checkout's; a kernel run by a program cannot ask for
    # the token, so it comes from the environment, as a JupyterHub spawner may set it.
    monkeypatch.setenv("PYTHONPATH", environment()["PYTHONPATH"])
    monkeypatch.setenv("GRADERS_TOKEN", people["ada"])
    node = nbformat.from_dict(nb)
    NotebookClient(
        node, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}}
    ).execute()
    outputs = node.cells[-1].outputs
    shown = [o for o in outputs if o.output_type == "display_data"]
    assert len(shown) == 1, outputs
    html, text = shown[0].data["text/html"], shown[0].data["text/plain"]
    max_score = _max_score(server, people["ada"])
    assert f"Your attempt 1 at ps1: {max_score} / {max_score} points." in html
    assert text.splitlines()[:4] == [
        f"Your attempt 1 at ps1: {max_score} / {max_score} points.",
        "This submission is your grade of record.",
        f"You have {MAX_ATTEMPTS - 1} attempt left.",
        "Every answer is correct.",
    ]
    # nbclient runs the saved cells as they are, without saving again: the kernel ran what
    # the file holds, so nothing stops or warns (only a cell run as edited would).
    warned = "".join(o.text for o in outputs if o.output_type == "stream")
    assert warned == ""


def _max_score(server: ServerProcess, token: str) -> str:
    """ps1's points, as the service graded ada's one attempt (the service holds it)."""
    mine = httpx.get(
        f"{server.url}/api/assignments/ps1/submissions", headers=bearer(token), timeout=30
    ).json()
    assert [(a["id"], a["status"]) for a in mine] == [(1, "graded")]
    assert mine[0]["score"] == mine[0]["max_score"]
    return f"{mine[0]['max_score']:g}"


def test_the_services_own_refusals_read_as_one_sentence(
    course: ServedCourse,
    server: ServerProcess,
    people: dict[str, str],
    released: dict[str, object],
    tmp_path: Path,
) -> None:
    path = save_nb(fill(released, course.key), tmp_path / "ps1.ipynb")
    store = TokenStore(tmp_path / "tokens")
    store.put(server.url, "not-a-token-the-service-knows")
    with pytest.raises(SubmitError, match=r"^The service refused your token \("):
        submit_notebook(path, store=store, ask=lambda prompt: "")
    assert store.get(server.url) is None  # forgotten: the next submit asks
    for _attempt in range(MAX_ATTEMPTS):
        graded = submit_notebook(path, store=store, ask=lambda prompt: people["bea"])
        assert graded.status == "graded" and graded.score == graded.max_score
    assert graded.attempts_left == 0
    with pytest.raises(SubmitError) as refused:
        submit_notebook(path, store=store, ask=lambda prompt: "never asked")
    assert str(refused.value) == (
        "You have used all your attempts at ps1: nothing was submitted, and your grade of "
        "record stays as it is."
    )
    assert json.loads((tmp_path / "tokens" / "tokens.json").read_text()) == {
        server.url: people["bea"]
    }
