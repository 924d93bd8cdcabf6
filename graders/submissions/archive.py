"""A .zip of submissions (an LMS's bulk download, or a zipped submissions folder), unpacked.

The archive is unpacked into a private temporary folder that lives as long as the batch
and is then removed. Its member names are untrusted: an absolute name, a ``..`` part, a
link or a device, two members with one name, or more members or bytes than a class hands
in make the whole archive refused, naming the member. A member larger than any notebook
may be is not unpacked: it stands as an empty file of its declared size, which the
notebook reader refuses as too large without reading it.
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from ..errors import UsageError
from ..intake.identity import student_id
from ..intake.lms_download import downloaded_name
from ..notebook.read import MAX_NOTEBOOK_BYTES
from .folder_layout import one_learner

MAX_MEMBERS = 50_000
MAX_UNPACKED_BYTES = 4 * 1024**3  # 4 GiB: 500 notebooks of 8 MB, the outputs left in
COPY_CHUNK = 1 << 20
IGNORED_TOP = {"__MACOSX"}  # macOS's resource forks, added by its "Compress" menu
UNIX = 3  # ZipInfo.create_system of an archive made on Unix: its modes say what a member is


@contextmanager
def opened_submissions(path: Path, assignment: str | None = None) -> Iterator[Path]:
    """The folder to collect from: ``path`` itself, or the .zip ``path`` unpacked (for
    ``assignment``: a lone top folder holding one learner's work is that learner's)."""
    if path.is_dir():
        yield path
        return
    if not path.is_file() or not zipfile.is_zipfile(path):
        raise UsageError(f"{path}: not a submissions folder or a .zip of one")
    with tempfile.TemporaryDirectory(prefix="graders-submissions-") as tmp:
        yield unpack(path, Path(tmp), assignment)


def unpack(archive: Path, into: Path, assignment: str | None = None) -> Path:
    """Unpack ``archive`` into ``into``; the folder that holds the submissions."""
    try:
        with zipfile.ZipFile(archive) as zf:
            members = _checked_members(archive, zf)
            for info, relative in members:
                _extract(zf, info, into / relative)
                _keep_time(info, into / relative)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as exc:
        raise UsageError(f"{archive}: cannot unpack: {exc}") from exc
    except RuntimeError as exc:  # an encrypted member
        raise UsageError(f"{archive}: cannot unpack: {exc}") from exc
    except OSError as exc:  # a member inside another member's name ("a" and "a/b")
        raise UsageError(f"{archive}: cannot unpack: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:  # a name marked UTF-8 that is not
        raise UsageError(f"{archive}: cannot unpack: a member's name is not UTF-8") from exc
    return _submissions_root(into, assignment)


def _checked_members(archive: Path, zf: zipfile.ZipFile) -> list[tuple[zipfile.ZipInfo, Path]]:
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise UsageError(f"{archive}: {len(infos)} members, more than the {MAX_MEMBERS} allowed")
    seen: set[str] = set()
    kept, total = [], 0
    for info in infos:
        relative = _member_path(archive, info)
        if relative is None:
            continue
        key = relative.as_posix()
        if key in seen:
            raise UsageError(f"{archive}: member {info.filename!r} appears twice")
        seen.add(key)
        total += min(info.file_size, MAX_NOTEBOOK_BYTES + 1)
        if total > MAX_UNPACKED_BYTES:
            raise UsageError(f"{archive}: unpacks to more than {MAX_UNPACKED_BYTES >> 30} GiB")
        kept.append((info, Path(key)))
    return kept


def _member_path(archive: Path, info: zipfile.ZipInfo) -> PurePosixPath | None:
    """Where a member goes inside the folder; None for a folder entry or an ignored one."""
    # Some Windows tools write backslashes; a name is composed (NFC) as folder names are.
    name = student_id(info.filename.replace("\\", "/"))
    parts = PurePosixPath(name).parts
    refused = (
        not parts
        or name.startswith("/")
        or ":" in parts[0]  # a drive letter: C:/...
        or any(p in ("..", ".") for p in parts)
        or "\0" in name
    )
    if refused:
        raise UsageError(f"{archive}: member {info.filename!r} leaves the archive's folder")
    # Only an archive made on Unix says a member's type; no type bits mean a plain file.
    kind = stat.S_IFMT(info.external_attr >> 16) if info.create_system == UNIX else 0
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise UsageError(f"{archive}: member {info.filename!r} is a link or a device, not a file")
    if info.is_dir() or parts[0] in IGNORED_TOP:
        return None
    return PurePosixPath(*parts)


def _extract(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        if info.file_size > MAX_NOTEBOOK_BYTES:
            out.truncate(info.file_size)  # sparse: its size is all anyone will look at
            return
        left = info.file_size
        with zf.open(info) as member:
            while chunk := member.read(min(COPY_CHUNK, left + 1)):
                left -= len(chunk)
                if left < 0:
                    raise zipfile.BadZipFile(f"{info.filename!r} is larger than it says")
                out.write(chunk)


def _keep_time(info: zipfile.ZipInfo, target: Path) -> None:
    # As unzip does: the member's time (local, as zip stores it) becomes the file's.
    try:
        when = time.mktime((*info.date_time, 0, 0, -1))
    except (OverflowError, ValueError):
        return  # a nonsense date in the archive: the file keeps the time it was unpacked
    os.utime(target, (when, when))


def _submissions_root(folder: Path, assignment: str | None) -> Path:
    """The unpacked folder, or the one folder it holds when the archive zipped a folder of
    submissions (not one learner's folder: ``alice/ps1/ps1.ipynb`` is alice's)."""
    entries = [p for p in folder.iterdir() if p.name not in IGNORED_TOP]
    if len(entries) != 1 or not entries[0].is_dir() or one_learner(entries[0], assignment):
        return folder
    inner = entries[0]
    holds_students = any(p.is_dir() or downloaded_name(p.name) for p in inner.iterdir())
    return inner if holds_students else folder
