"""What every request of one course's service shares: the ``Service``, and how a request
finds it, its reader's language and who sent it.

The routes (``api``, ``pages``, ``lti.launch``) and the application that holds them (``app``)
all use it, so it sits under them: nothing here imports a route.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from ..course.learner_language import LearnerLanguages
from ..course.model import Assignment
from ..errors import SpecError, UsageError
from ..gradebook import store as gradebook
from ..gradebook.accommodations import sync as sync_accommodations
from ..i18n import N_
from ..intake.roster import ROSTER_FILE, load_roster
from ..notebook.read import MAX_NOTEBOOK_BYTES
from ..workspace import Workspace
from .grader import Grader
from .identity import Authenticator, BearerToken, Credentials, Identity, SessionCookie, identify
from .lti.tool import LtiTool
from .queue import Queue
from .refusals import Refusal, Refused
from .servers import Servers
from .sites import Here, OnCluster, Site
from .waiting import Waiters

LANGUAGE_COOKIE = "graders_lang"


class Service:
    """What every request of one course's service shares."""

    def __init__(
        self,
        session: Workspace,
        db_url: str,
        *,
        workers: int | None = 1,
        cluster: str | None = None,
        isolation: str = "auto",
        max_bytes: int = MAX_NOTEBOOK_BYTES,
        queue_limit: int = 10_000,
        grace_s: float = 30.0,
        base_url: str | None = None,
        lti_every_s: float = 10.0,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.session = session
        # When a notebook counts as handed in (``api.submit``): the wall clock; a test of a
        # whole term gives its own, to hand in before and after a due date in one run.
        self.clock = clock
        self.loaded = session.loaded
        self.course = session.loaded.course
        self.engine = gradebook.open_gradebook(db_url)
        # Accommodations apply to assignments added or moved since they were set.
        sync_accommodations(self.engine, self.loaded)
        self.credentials = Credentials(self.engine, self.course.id)
        self.queue = Queue(self.engine, self.course.id, queue_limit, self.loaded.renamed)
        self.max_bytes, self.grace_s = max_bytes, grace_s
        self.base_url = base_url.rstrip("/") if base_url else None  # where an LMS reaches it
        self.lti = LtiTool(self.engine, self.loaded, every_s=lti_every_s)
        self.stopping = threading.Event()  # the server was asked to stop
        self.waiters = Waiters(self.stopping, self.queue.finished)
        # Uploads being read now, by learner (``api.accept``): each holds up to the size
        # limit in memory while it is read and checked, so one learner has a few at most.
        self.reading: Counter[str] = Counter()
        site = _site(session, workers, cluster, isolation)
        self.grader = (
            Grader(session, self.queue, Servers(self.engine), site, done=self._graded)
            if site is not None
            else None
        )
        self._languages: dict[str, LearnerLanguages] = {}
        self._roster_key: tuple[int, int] | None = None
        self._roster_languages: dict[str, str] = {}

    def _graded(self, attempt_id: int) -> None:
        self.waiters.done(attempt_id)
        self.lti.wake()  # a new grade of record may be an LMS's to receive

    def assignment(self, ident: str) -> Assignment:
        """The course's assignment ``ident``; ``Refused`` (404) when there is none."""
        found = self.course.assignment(ident)
        if found is None:
            text = N_("There is no assignment '{assignment}' in this course.")
            raise Refused(404, Refusal(text, {"assignment": ident}))
        return found

    def languages(self, assignment: str) -> LearnerLanguages:
        """The course of ``assignment`` in each language its learners read (made once)."""
        if assignment not in self._languages:
            self._languages[assignment] = LearnerLanguages(self.loaded, assignment)
        return self._languages[assignment]

    def language(self, request: Request) -> str:
        """The reader's language: ``?lang=``, else the one they chose on a page, else a
        signed-in learner's own (the roster's ``language``, the one their notebooks were
        released in), else the first of their browser's that the course has, else the
        course's first."""
        languages = self.course.languages
        for chosen in (request.query_params.get("lang"), request.cookies.get(LANGUAGE_COOKIE)):
            if chosen in languages:
                return chosen
        who = getattr(request.state, "identity", None)  # set by ``identify``, when known
        if who is not None and not who.instructor:
            own = self.roster_languages().get(who.student)
            if own in languages:
                return own
        for tag in accepted_languages(request.headers.get("accept-language", "")):
            for candidate in (tag, tag.split("-")[0]):
                if candidate in languages:
                    return candidate
        return languages[0]

    def roster_languages(self) -> dict[str, str]:
        """Learner -> the language the roster gives them (those it gives one); read again
        when ``roster.csv`` changes, and empty while there is none or it does not read."""
        path = self.loaded.root / ROSTER_FILE
        try:
            stat = path.stat()
            key: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            key = None
        if key != self._roster_key:
            languages: dict[str, str] = {}
            if key is not None:
                try:
                    roster = load_roster(path)
                except (SpecError, UsageError):
                    roster = None  # the instructor's desk says what is wrong with it
                if roster is not None:
                    languages = {e.student: e.language for e in roster.entries if e.language}
            self._roster_key, self._roster_languages = key, languages
        return self._roster_languages

    async def who(self, request: Request, ways: Sequence[Authenticator]) -> Identity:
        """Who sent ``request``; ``Refused`` (401) when no one the service knows did."""
        asked = await run_in_threadpool(identify, request, self.credentials, ways)
        if asked.identity is not None:
            return asked.identity
        text = (
            N_(
                "This token is not valid (it may have been replaced by a newer one): ask "
                "your instructor."
            )
            if asked.presented
            else BEARER_NEEDED
        )
        raise Refused(401, Refusal(text), headers=BEARER_CHALLENGE)


def _site(
    session: Workspace, workers: int | None, cluster: str | None, isolation: str
) -> Site | None:
    """Where this process grades: a cluster (``workers`` at once, by default twice its
    threads), else here (``workers`` at once); nowhere with ``workers=0``."""
    if workers == 0:
        return None
    if cluster is not None:
        return OnCluster(session, cluster, isolation=isolation, at_once=workers)
    return Here(session, workers or 1)


def accepted_languages(header: str) -> list[str]:
    """The language tags of an ``Accept-Language`` header, most wanted first."""
    found: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and tag != "*" and quality > 0:
            found.append((-quality, index, tag.lower()))
    return [tag for _, _, tag in sorted(found)]


BEARER_NEEDED = N_("Sign in: send your token as 'Authorization: Bearer TOKEN'.")
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="graders"'}
API_WAYS: tuple[Authenticator, ...] = (BearerToken(), SessionCookie())
UPLOAD_WAYS: tuple[Authenticator, ...] = (BearerToken(),)  # a cookie may not post: forms do
PAGE_WAYS: tuple[Authenticator, ...] = (SessionCookie(),)  # a page's form, signed in


def service_of(request: Request) -> Service:
    found: Service = request.app.state.service
    return found
