"""Helpers of the LTI tests: the tool (the service) on a real uvicorn in this process,
the test LMS registered with it, and a launch walked through as a browser walks it.

    with tool_and_lms(tmp_path, db_url) as (tool, lms):
        browser = tool.browser()                         # httpx, keeps the tool's cookies
        page = launch(browser, lms, "ada", "ps1")        # login -> auth -> launch -> page
"""

from __future__ import annotations

import re
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from lti_platform import Platform, User, form_of
from service_helpers import course_to_serve, free_port
from sqlalchemy import func, select

from graders.course.load import load_course
from graders.gradebook.tables import Base
from graders.kinds.base import Context
from graders.sandbox import InProcessRunner
from graders.service.lti.platforms import Platforms, Registration
from graders.workspace import Workspace


class Tool:
    """The service of a course, with LTI, on a free loopback port (uvicorn in a thread)."""

    def __init__(self, root: Path, db_url: str) -> None:
        from graders.service.app import Service, create_app

        self.root, self.port = root, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        loaded = load_course(root / "course.yml")
        self.runner = InProcessRunner()
        session = Workspace(
            loaded, Context(loaded.course, loaded.root, self.runner, root / ".graders-cache")
        )
        self.service = Service(session, db_url, workers=1, base_url=self.url, lti_every_s=0.2)
        config = uvicorn.Config(
            create_app(self.service), host="127.0.0.1", port=self.port, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Tool:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "the tool did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(60)
        self.runner.close()

    def browser(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60)

    def count(self, table: str) -> int:
        """Rows in one of the gradebook's tables."""
        with self.service.engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(Base.metadata.tables[table])
                ).scalar_one()
            )


def register(tool: Tool, lms: Platform, contexts: tuple[str, ...] = ()) -> None:
    """`graders lti add-platform` for ``lms`` (the library call the command makes), bound to
    ``contexts`` (its ``--context``) if given."""
    Platforms(tool.service.engine, tool.service.course.id).add(
        Registration(
            lms.issuer,
            lms.client_id,
            "deployment-1",
            f"{lms.url}/auth?realm=test",
            f"{lms.url}/token",
            f"{lms.url}/jwks",
            contexts=contexts,
        )
    )


@contextmanager
def tool_and_lms(
    tmp_path: Path,
    db_url: str | None = None,
    before_start: list[str] | None = None,
    **course: Any,
) -> Iterator[tuple[Tool, Platform]]:
    """The small course served with LTI beside a test LMS that knows ada (a learner) and
    ida (an instructor); ``before_start``: a graders command run on it before the tool
    starts (an accommodation, say)."""
    root = course_to_serve(tmp_path, **course)
    if before_start:
        from click.testing import CliRunner

        from graders.cli import main

        db = ["--db", db_url] if db_url else []
        done = CliRunner().invoke(main, [*before_start, *db])
        assert done.exit_code == 0, done.output
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with Platform() as lms, Tool(root, db_url or f"sqlite:///{root / 'gradebook.db'}") as tool:
            lms.tool_url = tool.url
            lms.users["ada"] = User("u-ada-1", "Ada Lovelace", "ada@example.org", "ada")
            lms.users["ida"] = User(
                "u-ida-2", "Ida Rhodes", "ida@example.org", "ida", roles=[INSTRUCTOR_ROLE]
            )
            register(tool, lms)
            yield tool, lms


INSTRUCTOR_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


def start(
    browser: httpx.Client,
    lms: Platform,
    who: str,
    assignment: str | None = "ps1",
    deep: bool = False,
) -> tuple[str, dict[str, str]]:
    """The login and the platform's authorization: the launch form the LMS posts back."""
    login = browser.post("/lti/login", data=lms.login_fields(who, assignment, deep))
    assert login.status_code == 302, login.text
    auth = httpx.get(login.headers["location"], timeout=30)
    assert auth.status_code == 200, auth.text
    return form_of(auth.text)


def launch(
    browser: httpx.Client, lms: Platform, who: str, assignment: str | None = "ps1"
) -> httpx.Response:
    """A whole launch: login, authorization, the id_token posted, on to the page."""
    action, fields = start(browser, lms, who, assignment)
    posted = browser.post(action, data=fields)
    assert posted.status_code == 303, posted.text
    page = browser.get(posted.headers["location"], follow_redirects=True)
    assert page.status_code == 200, page.text
    return page


def csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]*)"', page)
    assert found, "no form token on the page"
    return found[1]


def upload_page(
    browser: httpx.Client, page: str, notebook: str, assignment: str = "ps1"
) -> httpx.Response:
    """The assignment page's upload form, sent as a browser sends it."""
    return browser.post(
        f"/assignments/{assignment}",
        data={"csrf": csrf(page)},
        files={"notebook": (f"{assignment}.ipynb", notebook, "application/x-ipynb+json")},
        follow_redirects=True,
    )


def wait_for(check: Any, timeout: float = 60.0) -> Any:
    """``check()`` once it is true (polled): the passback runs on its own thread."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not true within {timeout} s: {check}")
