"""Wire formats: control messages between runner and fork server, and the child's result frame.

Control messages are small JSON objects, one per ``SOCK_SEQPACKET`` datagram, with file
descriptors attached where needed; the payload and the result never travel this way (they
go straight between the trusted parent and the child, so the fork server never holds
learner data that a later child could find in its memory).

The result frame is one line of JSON, ``{"ok": {...}}``, ``{"error": "..."}``,
``{"integrity": "..."}`` or ``{"internal": "..."}``, written by the child on an inherited
pipe. It is read by the parent with a size cap and parsed strictly (``decode_frame``).
"""

from __future__ import annotations

import json
import socket
from typing import Any

MAX_CONTROL_BYTES = 1 << 16
MAX_FDS = 8
MAX_DEPTH = 100  # deeper results are refused: consumers recurse over them
FRAME_KINDS = ("ok", "error", "integrity", "internal")


class FrameError(ValueError):
    """The result channel did not hold exactly one well-formed frame."""


def send_message(sock: socket.socket, message: dict[str, Any], fds: tuple[int, ...] = ()) -> None:
    """Send one control message, with ``fds`` attached (SCM_RIGHTS)."""
    data = json.dumps(message, separators=(",", ":")).encode()
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def recv_message(sock: socket.socket) -> tuple[dict[str, Any] | None, list[int]]:
    """Receive one control message and its fds; ``(None, [])`` when the peer has gone."""
    data, fds, _flags, _addr = socket.recv_fds(sock, MAX_CONTROL_BYTES, MAX_FDS)
    if not data:
        return None, fds
    return json.loads(data), fds


# An encoder object made once: learner code that replaces ``json.dumps`` does not reach it.
_ENCODER = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


def encode_frame(kind: str, value: Any) -> bytes:
    """One result line. Raises ``ValueError``/``TypeError``/``RecursionError`` on non-JSON data."""
    return _ENCODER.encode({kind: value}).encode() + b"\n"


def _refuse_constant(token: str) -> Any:
    raise FrameError(f"the result contains {token}, which is not valid JSON")


def decode_frame(data: bytes) -> tuple[str, Any]:
    """Parse the bytes of the result channel into ``(kind, value)``, strictly.

    Exactly one newline-terminated JSON object with one known key; no NaN/Infinity; at
    most ``MAX_DEPTH`` levels deep; an ``ok`` value must be an object.
    """
    if not data.endswith(b"\n"):
        raise FrameError("the result was cut off (no end of line)")
    if data.count(b"\n") != 1:
        raise FrameError("more than one result was written")
    try:
        frame = json.loads(data, parse_constant=_refuse_constant)
    except FrameError:
        raise
    except RecursionError:
        raise FrameError(f"the result is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
        raise FrameError("the result is not valid JSON") from None
    if not isinstance(frame, dict) or len(frame) != 1 or next(iter(frame)) not in FRAME_KINDS:
        raise FrameError("the result is not a frame the sandbox writes")
    kind, value = next(iter(frame.items()))
    _check_frame_value(kind, value)
    return kind, value


def _check_frame_value(kind: str, value: Any) -> None:
    if kind == "ok":
        if not isinstance(value, dict):
            raise FrameError(f"the result is a {type(value).__name__}, not an object")
        if depth(value) > MAX_DEPTH:
            raise FrameError(f"the result is nested more than {MAX_DEPTH} levels deep")
    elif not isinstance(value, str):
        raise FrameError("the result is not a frame the sandbox writes")


def depth(value: Any) -> int:
    """Nesting depth of lists/dicts (a scalar is 0), computed without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:
            stack.extend((child, level + 1) for child in children)
    return deepest
