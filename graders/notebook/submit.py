"""The learner hands their notebook in to ``graders serve`` and reads its feedback in place.

    >>> import graders; graders.submit()          # the last cell of a released notebook
    $ python -m graders submit ps1.ipynb          # the same from a terminal

In order, each step stopping with one sentence in the notebook's language when it must:

1. the notebook: the running kernel's, found as ``check`` finds it, or ``path``; what is
   handed in is the file as saved, read as grading reads it;
2. in a kernel, a warning when the saved file is older than the cell run last (save
   first: unsaved changes are not handed in);
3. the pre-submit check (``check``): an answer the grader cannot read stops here, before
   an attempt is spent;
4. the service: ``service=``, else ``GRADERS_SERVICE``, else the URL ``graders release
   --service`` wrote into the notebook;
5. the token (``tokens``: ``GRADERS_TOKEN``, else kept, else asked once), the upload, and
   the wait for the grade, bounded by ``timeout_s``;
6. the feedback as the service shows it (``submit_report``): HTML in a notebook, text in a
   terminal. A problem is a sentence, never a traceback.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..course.times import offset_text
from ..errors import GraderError, SubmitError
from ..i18n import _, speaking
from . import META_KEY
from .presubmit import check_notebook, find_notebook, running_shell
from .service_client import Answered, ServiceClient, Unreachable, service_url
from .submit_report import FAILED, GRADED, Feedback
from .tokens import NoToken, Source, Token, TokenStore, ask_hidden, learner_token

__all__ = ["DEFAULT_TIMEOUT_S", "SERVICE_ENV", "Feedback", "submit", "submit_notebook"]

SERVICE_ENV = "GRADERS_SERVICE"
DEFAULT_TIMEOUT_S = 120.0
POLL_S = 20  # how long one request waits for the grade (the service holds it, up to 30 s)
ANSWER_GRACE_S = 2.0  # past the long poll: the answer on its way back


@dataclass(frozen=True)
class _Ready:
    """A notebook checked and ready to hand in."""

    path: Path
    data: bytes  # the file as saved, as it was checked
    assignment: str
    service: str
    labels: dict[str, str]
    language: str


def submit(
    path: str | Path | None = None,
    *,
    assignment: str | None = None,
    service: str | None = None,
    lang: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    anyway: bool = False,
) -> None:
    """Hand in ``path``, or the notebook this kernel runs, and show the service's feedback.

    In a notebook the feedback is HTML in the cell's output; a problem is one sentence
    (on stderr), so the learner reads what to do rather than a traceback. A notebook whose
    saved file is not what the kernel ran is not handed in (no attempt spent) unless
    ``anyway`` says to hand in the saved file as it is.
    """
    shell = running_shell()
    in_kernel = shell is not None and hasattr(shell, "kernel")
    try:
        notebook = Path(path) if path else find_notebook(call="submit", assignment=assignment)
        feedback = submit_notebook(
            notebook,
            assignment=assignment,
            service=service,
            lang=lang,
            timeout_s=timeout_s,
            ran=_inputs(shell) if in_kernel else None,
            anyway=anyway,
            warn=_say,
        )
    except GraderError as exc:
        _say(str(exc))
        return
    if in_kernel:
        # Both forms: the notebook shows the HTML, a front end without HTML the text.
        shell.display_pub.publish({"text/html": feedback.html(), "text/plain": feedback.text()})
    else:
        print(feedback.text())


def submit_notebook(
    path: Path,
    *,
    assignment: str | None = None,
    service: str | None = None,
    lang: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    ran: Sequence[str] | None = None,
    anyway: bool = False,
    warn: Callable[[str], None] = lambda _text: None,
    ask: Callable[[str], str] = ask_hidden,
    store: TokenStore | None = None,
) -> Feedback:
    """Hand in the notebook saved at ``path`` and wait for its feedback (the module's steps).

    ``ran``: what the kernel ran, by execution count (``ran[n]`` is cell ``n``; the last is
    the cell submitting), when run in one: a saved file that is not what it ran is not handed
    in, unless ``anyway``. ``warn`` says what does not stop the submission; ``ask`` asks for
    a token (hidden). Raises ``SubmitError`` or ``SubmissionError``, one sentence in the
    notebook's language.
    """
    ready = _prepared(path, assignment, service, lang, (ran, anyway), warn)
    with speaking(ready.language):
        return _hand_in(ready, timeout_s, ask, store or TokenStore())


def _prepared(
    path: Path,
    assignment: str | None,
    service: str | None,
    lang: str | None,
    kernel: tuple[Sequence[str] | None, bool],
    warn: Callable[[str], None],
) -> _Ready:
    report = check_notebook(path, assignment, lang)
    data = path.read_bytes()
    meta = _notebook_meta(data)
    ran, anyway = kernel
    with speaking(report.language):
        unsaved = _ran_not_saved(data, ran) if ran is not None else []
        if unsaved and not anyway:
            text = _(
                "Nothing was submitted: {name} on disk is not what you ran ({count} of the cells "
                "you ran since it was saved are not in it), and only the saved file is handed "
                "in. Save the notebook (File > Save, or Ctrl+S) and submit again; to hand in "
                "the saved file as it is, submit(anyway=True)."
            )
            raise SubmitError(text.format(name=path.name, count=len(unsaved)))
        if unsaved:
            text = _("Handing in {name} as it was saved, not as you ran it.")
            warn(text.format(name=path.name))
        if not report.ok:
            nothing = _(
                "Nothing was submitted: fix the answers the grader cannot read, save the "
                "notebook and submit again."
            )
            raise SubmitError(f"{report.text()}\n\n{nothing}")
        if not report.assignment:
            text = _(
                "Nothing was submitted: this notebook does not say which assignment it is; "
                "pass it, e.g. submit(assignment='ps1')."
            )
            raise SubmitError(text)
        labels = meta.get("labels")
        return _Ready(
            path,
            data,
            report.assignment,
            _service(service, meta),
            {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {},
            report.language,
        )


def _service(given: str | None, meta: Mapping[str, Any]) -> str:
    named = meta.get("service")
    url = (
        given
        or os.environ.get(SERVICE_ENV, "").strip()
        or (named if isinstance(named, str) else "")
    )
    if not url:
        raise SubmitError(
            _(
                "This notebook names no grading service to submit to: ask your instructor for "
                "its address and set {variable} to it."
            ).format(variable=SERVICE_ENV)
        )
    try:
        return service_url(url)
    except ValueError:
        text = _(
            "The grading service's address, {url}, is not an http:// or https:// address: "
            "ask your instructor for the right one."
        )
        raise SubmitError(text.format(url=url)) from None


def _hand_in(
    ready: _Ready, timeout_s: float, ask: Callable[[str], str], store: TokenStore
) -> Feedback:
    prompt = _("Your token for {url} (your instructor gave it to you; it stays hidden): ")
    try:
        token = learner_token(ready.service, store, lambda: ask(prompt.format(url=ready.service)))
    except NoToken:
        text = _(
            "Nothing was submitted: no token was typed, and {variable} is not set; set it to "
            "the token your instructor gave you, or run submit where it can ask for one."
        )
        raise SubmitError(text.format(variable="GRADERS_TOKEN")) from None
    client = ServiceClient(ready.service, token.value, ready.language)
    try:
        ident = client.upload(ready.assignment, ready.path.name, ready.data)
    except Answered as exc:
        if exc.status != 401:
            _keep(store, ready.service, token)
        raise _refused(exc, ready, token, store) from None
    except Unreachable as exc:
        raise _unreachable(ready.service, exc) from None
    _keep(store, ready.service, token)
    return Feedback.from_json(
        _graded(client, ident, ready, timeout_s), ready.labels, ready.language
    )


def _keep(store: TokenStore, url: str, token: Token) -> None:
    """A typed token the service took is kept: it is asked once."""
    if token.source is Source.ASKED:
        store.put(url, token.value)


def _graded(client: ServiceClient, ident: int, ready: _Ready, timeout_s: float) -> dict[str, Any]:
    """The submission once graded (or failed), asked again until ``timeout_s`` has passed."""
    try:
        return _asked_until_graded(client, ident, ready, timeout_s)
    except KeyboardInterrupt:
        # Interrupting the kernel stops the waiting, not the submission: say where it is.
        text = _(
            "Stopped waiting: submission {id} was handed in all the same, and its feedback will "
            "be on the service's pages at {url}."
        )
        raise SubmitError(text.format(id=ident, url=ready.service)) from None


def _asked_until_graded(
    client: ServiceClient, ident: int, ready: _Ready, timeout_s: float
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while (left := deadline - time.monotonic()) > 0:
        asked = time.monotonic()
        try:
            # The whole call within what is left of timeout_s (and the long poll's answer
            # a moment to come back): a service that trickles its answer is cut off then.
            found = client.submission(
                ident, wait_s=min(POLL_S, math.ceil(left)), within_s=left + ANSWER_GRACE_S
            )
        except (Answered, Unreachable) as exc:
            reason = exc.message if isinstance(exc, Answered) else exc.reason
            text = _(
                "Submission {id} was handed in, but its grade could not be read ({reason}): "
                "look for it on the service's pages at {url}."
            )
            raise SubmitError(text.format(id=ident, reason=reason, url=ready.service)) from None
        if found.get("status") in (GRADED, FAILED):
            return found
        if time.monotonic() - asked < 1:  # a service that answers at once: ask each second
            time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
    text = _(
        "Submission {id} was handed in, but is not graded after {seconds} s (the service may "
        "be busy): its feedback will be on the service's pages at {url}."
    )
    raise SubmitError(text.format(id=ident, seconds=f"{timeout_s:g}", url=ready.service))


def _refused(exc: Answered, ready: _Ready, token: Token, store: TokenStore) -> SubmitError:
    """What a refused upload means to the learner, in one sentence (and the token of a 401
    forgotten, so that the next submit asks again)."""
    said = exc.message
    if exc.status == 401:
        if token.source is Source.ENVIRONMENT:
            text = _(
                "The service refused the token in {variable}: ask your instructor for a new "
                "one; nothing was submitted."
            )
            return SubmitError(text.format(variable="GRADERS_TOKEN"))
        store.forget(ready.service)
        return SubmitError(
            _(
                "The service refused your token (it may have been replaced by a newer one), so "
                "it is forgotten: run submit again and type the token your instructor gave you."
            )
        )
    if exc.status == 404:
        text = _(
            "The service at {url} has no assignment '{assignment}': this notebook is not one of "
            "its course's; nothing was submitted."
        )
        return SubmitError(text.format(url=ready.service, assignment=ready.assignment))
    if exc.status == 429:
        return SubmitError(_too_many(exc, ready.assignment))
    if exc.status == 413:
        text = _(
            "The notebook is too large for the service: clear its outputs (Edit > Clear "
            "Outputs of All Cells), save it and submit again."
        )
        return SubmitError(text)
    if exc.status == 422:
        text = _("The service did not take this notebook: {reason}")
        return SubmitError(text.format(reason=said or exc.status))
    text = _("The service did not take this notebook ({status}): {reason}")
    return SubmitError(text.format(status=exc.status, reason=said or _("no reason given.")))


def _too_many(exc: Answered, assignment: str) -> str:
    if exc.reason == "attempt-limit":
        text = _(
            "You have used all your attempts at {assignment}: nothing was submitted, and your "
            "grade of record stays as it is."
        )
        return text.format(assignment=assignment)
    when = _next_time(exc.retry_after or 1)
    text = _("Not yet: your next attempt at {assignment} is possible at {time} (in {seconds} s).")
    return text.format(assignment=assignment, time=when, seconds=exc.retry_after or 1)


def _next_time(seconds: int) -> str:
    """This machine's local time in ``seconds``, with its zone (the learner's machine and
    the service may be in different ones): the time only when it is today."""
    now = datetime.now().astimezone()
    then = now + timedelta(seconds=seconds)
    when = f"{then:%H:%M:%S}" if then.date() == now.date() else f"{then:%Y-%m-%d %H:%M}"
    return f"{when} {offset_text(then.utcoffset())}"


def _unreachable(url: str, exc: Unreachable) -> SubmitError:
    text = _(
        "The grading service at {url} cannot be reached ({reason}): check the connection and "
        "try again; nothing was submitted."
    )
    return SubmitError(text.format(url=url, reason=exc.reason))


def _notebook_meta(data: bytes) -> dict[str, Any]:
    """The notebook's ``metadata.graders`` (``check_notebook`` has read the file already)."""
    meta = json.loads(data.decode("utf-8-sig")).get("metadata", {})
    found = meta.get(META_KEY) if isinstance(meta, dict) else None
    return found if isinstance(found, dict) else {}


def _ran_not_saved(data: bytes, ran: Sequence[str]) -> list[str]:
    """What the kernel ran since the file was last saved that the file does not hold.

    Jupyter writes each code cell's execution count into the file when it saves, so the
    largest count in the file is the last cell run before that save; every cell the kernel
    ran after it (but the one submitting, ``ran[-1]``) is compared with the file's code
    cells. Running cells again unchanged (Run All) finds nothing; running an edit without
    saving finds the edit. A kernel restarted since the save starts its counts again: only
    the cells past the file's largest count are compared then."""
    cells = json.loads(data.decode("utf-8-sig")).get("cells", [])
    code = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    saved = {_as_run(c.get("source", "")) for c in code}
    counts = [c.get("execution_count") for c in code]
    last_saved = max((n for n in counts if isinstance(n, int)), default=0)
    since = ran[last_saved + 1 : len(ran) - 1]
    return [s for s in since if s.strip() and _as_run(s) not in saved]


def _as_run(source: Any) -> str:
    """A cell's source as a kernel's input compares with it (nbformat may keep it as lines)."""
    text = "".join(source) if isinstance(source, list) else str(source)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _inputs(shell: Any) -> list[str]:
    """What the kernel ran, by execution count: IPython stores a cell's input before it
    runs (``In[n]`` is cell ``n``, ``In[0]`` blank), so while ``submit`` runs, its own cell
    is the last; the raw text (as typed, magics and all) is what the file holds."""
    history = getattr(shell, "history_manager", None)
    for name in ("input_hist_raw", "input_hist_parsed"):
        inputs = getattr(history, name, None)
        if isinstance(inputs, list):
            return [str(i) for i in inputs]
    return []


def _say(text: str) -> None:
    print(text, file=sys.stderr)
