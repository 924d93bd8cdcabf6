"""The wheel of this very graders, for repositories that grade or check in CI.

    build_wheel(dest)   # dest/autograd_graders-0.1.0-py3-none-any.whl

``graders`` on the public index is another project's name, so a requirement that names
graders by its bare name could install someone else's code. ``init-ci`` writes this wheel
into the repository instead, and every requirement it writes names the file. The wheel is
made from the installed distribution (its metadata and entry points, the package's files)
in the binary distribution format of PEP 427 and PEP 491: graders is pure Python, so one
``py3-none-any`` wheel serves every runner.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from importlib import metadata
from pathlib import Path

from ... import __distribution__
from ...errors import UsageError

TAG = "py3-none-any"
# A fixed time for every entry: the same graders gives the same wheel, byte for byte.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def package_files() -> dict[str, bytes]:
    """The ``graders`` package's files, by their path in a wheel or on ``sys.path``."""
    package = Path(__file__).resolve().parents[2]  # graders/ itself: integrations/ci/ is two below
    return {
        f"graders/{p.relative_to(package).as_posix()}": p.read_bytes()
        for p in sorted(package.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def installed() -> metadata.Distribution:
    """graders' installed distribution (its metadata is what the wheel carries)."""
    try:
        return metadata.distribution(__distribution__)
    except metadata.PackageNotFoundError as exc:
        raise UsageError(
            f"{__distribution__} is not installed (pip install -e .): its wheel and its "
            "dependencies cannot be made"
        ) from exc


def wheel_name(dist: metadata.Distribution | None = None) -> str:
    """``autograd_graders-<version>-py3-none-any.whl``: the file name PEP 427 gives it."""
    dist = dist or installed()
    return f"{_escaped(__distribution__)}-{dist.version}-{TAG}.whl"


def build_wheel(dest: Path) -> Path:
    """Write the wheel into the folder ``dest`` (created) and return its path."""
    dist = installed()
    info = f"{_escaped(__distribution__)}-{dist.version}.dist-info"
    files = package_files()
    files[f"{info}/METADATA"] = _metadata(dist).encode()
    files[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: graders {dist.version}\nRoot-Is-Purelib: true\n"
        f"Tag: {TAG}\n"
    ).encode()
    entry_points = dist.read_text("entry_points.txt")
    if entry_points:
        files[f"{info}/entry_points.txt"] = entry_points.encode()
    files[f"{info}/top_level.txt"] = b"graders\n"
    record = f"{info}/RECORD"
    files[record] = _record(files, record).encode()
    path = dest / wheel_name(dist)
    dest.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files, key=lambda n: (n.startswith(info), n)):  # dist-info last
            entry = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, files[name])
    tmp.replace(path)
    return path


def _metadata(dist: metadata.Distribution) -> str:
    # An egg-info folder (a `setup.py develop` install) keeps the same text as PKG-INFO.
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO")
    if not text:
        raise UsageError(f"the installed {__distribution__} has no metadata: reinstall it")
    return text


def _record(files: dict[str, bytes], record: str) -> str:
    lines = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in sorted(files.items())]
    return "\n".join([*lines, f"{record},,"]) + "\n"


def _digest(data: bytes) -> str:
    raw = hashlib.sha256(data).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _escaped(name: str) -> str:
    # PEP 427: runs of "-", "_" and "." in the name become one underscore in a file name.
    return re.sub(r"[-_.]+", "_", name)
