"""A notebook upload read off the wire: never more than the limit, and checked before it
is accepted, so that bad input gets a clear answer and costs the learner nothing.

    form = await read_form(request, max_bytes)              # 413 past the limit
    upload = checked(form, "ps1", loaded, "ada", received_at)   # 422 saying why not

The body is counted as it comes (a ``Content-Length`` over the limit is refused before a
byte is read). The notebook is read the way grading reads it (``notebook.collect``): a
file that is not an nbformat 4 notebook, one released for another assignment, or one
without answer cells is refused with grading's own reason, naming the file as the learner
uploaded it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from datetime import datetime

from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from ..course.loaded import LoadedCourse
from ..errors import SubmissionError
from ..i18n import N_
from ..notebook.collect import read_submission
from ..notebook.read import size_text
from ..said import told
from .queue import Upload
from .refusals import Refusal, Refused

FIELD = "notebook"
FORM_OVERHEAD = 64 * 1024  # the multipart framing and the page form's other fields


class TooLarge(Exception):
    """The body went past the limit while it was read."""


@dataclass(frozen=True)
class Form:
    """A multipart form read whole: its notebook (name, bytes) and its text fields."""

    filename: str | None
    data: bytes | None
    fields: dict[str, str]


def upload_limit(max_bytes: int) -> int:
    """The most any request to an upload route may bring (``bodies.BodyLimit``): beyond
    what ``read_form`` takes, so that its own refusal, naming the notebook limit, comes
    first; the bound holds for any other body sent there."""
    return max_bytes + 2 * FORM_OVERHEAD


async def read_form(request: Request, max_bytes: int) -> Form:
    """The multipart form of ``request``; ``Refused`` (413, 422) when it is not one."""
    limit = max_bytes + FORM_OVERHEAD
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise _too_large(max_bytes)
    kind = request.headers.get("content-type", "")
    if not kind.lower().startswith("multipart/form-data"):
        raise Refused(422, _ask_for_the_field())
    parser = MultiPartParser(request.headers, _capped(request, limit), max_files=1, max_fields=8)
    # The notebook is kept in memory whole (``Form.data``, at most ``limit``): spooled past
    # Starlette's 1 MB to a temporary file, it would be written to disk for no reader.
    parser.spool_max_size = limit
    try:
        form = await parser.parse()
    except TooLarge:
        raise _too_large(max_bytes) from None
    except MultiPartException as exc:
        text = N_("The upload is not a well-formed form: {problem}")
        raise Refused(422, Refusal(text, {"problem": exc.message})) from exc
    try:
        return await _read(form, max_bytes)
    finally:
        await form.close()


def checked(
    form: Form, assignment: str, loaded: LoadedCourse, student: str, received_at: datetime
) -> Upload:
    """``form``'s notebook, read as grading will read it; ``Refused`` (422) saying why it
    cannot be graded for ``assignment``. Blocking: run it off the event loop."""
    if form.data is None:
        raise Refused(422, _ask_for_the_field())
    filename = upload_name(form.filename, f"{assignment}.ipynb")
    try:
        # Its bytes, read as grading reads them: nothing of the notebook is written to disk.
        read_submission(form.data, assignment, loaded, student, name=filename)
    except SubmissionError as exc:
        raise Refused(422, _reason(exc)) from exc
    return Upload(assignment, filename, form.data, received_at)


NAME_CHARS = 120  # an upload's name as kept and shown: enough for any real file name


def upload_name(sent: str | None, default: str) -> str:
    """The name an upload is kept and shown under: what the browser or script sent, as
    text only. A folder part goes (``/``, ``\\``, ``..``: a name, never a place), and so do
    control and format characters (NUL, which PostgreSQL's text cannot hold; the bidi
    overrides such as U+202E, which make ``gpj.ipynb`` read as another name; zero-width
    ones) and lone surrogates; what is left is NFC, at most ``NAME_CHARS`` characters, and
    ``default`` when nothing is."""
    text = unicodedata.normalize("NFC", (sent or "").replace("\\", "/").rsplit("/", 1)[-1])
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co"))
    kept = " ".join(kept.split()).strip(" .")
    return kept[-NAME_CHARS:] if kept else default


async def _read(form: FormData, max_bytes: int) -> Form:
    found = form.get(FIELD)
    fields = {k: v for k, v in form.multi_items() if isinstance(v, str)}
    if not isinstance(found, UploadFile):
        return Form(None, None, fields)
    data = await found.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_large(max_bytes)
    return Form(found.filename, data, fields)


async def _capped(request: Request, limit: int) -> AsyncGenerator[bytes, None]:
    seen = 0
    async for chunk in request.stream():
        seen += len(chunk)
        if seen > limit:
            raise TooLarge
        yield chunk


def _too_large(max_bytes: int) -> Refused:
    text = N_(
        "The notebook is larger than the {limit} a notebook may be: clear its outputs and "
        "save it again."
    )
    return Refused(413, Refusal(text, {"limit": size_text(max_bytes)}))


def _ask_for_the_field() -> Refusal:
    text = N_("Send the notebook as the file field '{field}' of a multipart form.")
    return Refusal(text, {"field": FIELD})


def _reason(exc: SubmissionError) -> Refusal:
    """Grading's reason, which names the file as the learner uploaded it (a message of its
    own, so a field: it is rendered in the reader's language with the refusal)."""
    return Refusal("{reason}", {"reason": told(exc)})
