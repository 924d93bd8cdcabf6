"""Wire formats: control messages, the child's step lines, and the keeper's one result frame.

Three channels, three formats:

- **Control** (runner <-> fork server): small JSON objects, one per ``SOCK_SEQPACKET``
  datagram, with file descriptors attached where needed. The payload and the result never
  travel this way, so the fork server never holds learner data a later child could find.
- **Steps** (child <-> keeper, a stream socket): the keeper begins the step by sending its
  payload; when the step's task has returned, the child's main thread asks for the step's
  **seal** with one line, ``{"ask": 0}``, and the keeper answers with a random token, new
  for every step, on the same socket; the child then writes exactly one JSON line,
  ``{"end": 0, "seal": ..., "<kind>": value}``, ``kind`` one of ``FRAME_KINDS``, and exits
  (or waits for the next step). This is the only thing a child can write that the grader
  reads, so the keeper parses it strictly (``decode_line``): a line without the step's
  seal, a second ask, and anything after the last line, is tampering. No seal exists in the
  child while the step's task runs: the learner's code cannot read one from the child's
  memory, and its thread can neither read nor write the socket (``syscalls.channel_filter``),
  so a line it managed to write by another way could not pass for the child's. It is a
  socket, not a pipe: a socket cannot be reopened through ``/proc/self/fd``.
- **Result** (keeper -> runner, a pipe the child never holds): one line,
  ``{"token": ..., "steps": [record, ...]}``, written by the keeper only (``decode_frame``);
  a record's ``words`` are its message as the sandbox's sentence and values (``Words``).
"""

from __future__ import annotations

import _json
import hmac
import json
import socket
from typing import Any

from .raised import type_name
from .words import Words

MAX_CONTROL_BYTES = 1 << 16
MAX_FDS = 8
MAX_DEPTH = 100  # deeper results are refused: consumers recurse over them
FRAME_KINDS = ("ok", "error", "integrity", "internal")
STEP_STATUSES = ("ok", "error", "timeout", "integrity")
RECORD_FIELDS = {"status": str, "message": str, "stdout": str, "stderr": str, "duration_s": float}


class FrameError(ValueError):
    """A channel did not hold what the sandbox writes there (``words``: why, as said)."""

    def __init__(self, sentence: str, **fields: str) -> None:
        self.words = Words(sentence, fields)
        super().__init__(str(self.words))


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


def _not_plain(value: Any) -> Any:
    raise TypeError(f"Object of type {type_name(value)} is not JSON serializable")


# The encoder is C code put together at import, in the warm server before any task runs,
# from the C functions themselves: nothing a task can replace afterwards (the ``json``
# module's globals, ``JSONEncoder``'s methods) takes part in writing a line.
_ENCODE: Any = _json.make_encoder(
    None, _not_plain, _json.encode_basestring_ascii, None, ":", ",", False, False, False
)
_JOIN: Any = "".join
_PLAIN_LEAVES = (str, int, float, bool, type(None))


def encode_line(message: dict[str, Any]) -> bytes:
    """One JSON line of plain data (exact ``dict`` with ``str`` keys, ``list``, ``tuple``,
    ``str``, ``int``, ``float``, ``bool``, ``None``; checked with ``type()``, so no method
    of a subclass runs). Raises ``RecursionError`` past ``MAX_DEPTH``, ``ValueError`` on NaN
    or Infinity and ``TypeError`` on anything else."""
    _check_plain(message)
    text: str = _JOIN(_ENCODE(message, 0))
    return text.encode() + b"\n"


def _check_plain(value: Any) -> None:
    """Raise unless ``value`` is plain JSON data, at most ``MAX_DEPTH`` containers deep
    (without recursion: the walk itself cannot be made to overflow the stack)."""
    todo = [(value, 0)]
    while todo:
        item, level = todo.pop()
        kind = type(item)
        if kind is dict or kind is list or kind is tuple:
            if level >= MAX_DEPTH:
                raise RecursionError("the result is nested too deeply")
            if kind is dict:
                for key in item:
                    if type(key) is not str:
                        raise TypeError(f"keys must be str, not {type_name(key)}")
                todo.extend((v, level + 1) for v in item.values())
            else:
                todo.extend((v, level + 1) for v in item)
        elif not any(kind is leaf for leaf in _PLAIN_LEAVES):
            _not_plain(item)


def _refuse_constant(token: str) -> Any:
    raise FrameError("the result contains {token}, which is not valid JSON", token=token)


def _strict_json(data: bytes) -> Any:
    try:
        return json.loads(data, parse_constant=_refuse_constant)
    except FrameError:
        raise
    except RecursionError:
        raise _too_deep() from None
    except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
        raise FrameError("the result is not valid JSON") from None


SEAL_BYTES = 16  # a step's seal: this many random bytes, as hex, then a newline


def encode_ask(step: int) -> bytes:
    """The child's request for ``step``'s seal, once its task has returned (made without
    calling anything a task could have replaced, builtins included)."""
    return b'{"ask":%d}\n' % step


def encode_running(step: int) -> bytes:
    """What the child's main thread writes instead of asking for ``step``'s seal when a
    thread the task started is still running (unsealed: it can only cost the task its step)."""
    return b'{"running":%d}\n' % step


def is_running(line: bytes, step: int) -> bool:
    """Whether ``line`` is exactly ``encode_running(step)``."""
    return line == encode_running(step).rstrip(b"\n")


def is_ask(line: bytes, step: int) -> bool:
    """Whether ``line`` is exactly the request for ``step``'s seal (as ``encode_ask`` writes
    it): any other line is decoded as the step's end."""
    return line == encode_ask(step).rstrip(b"\n")


def decode_line(line: bytes, step: int, seal: str | None) -> tuple[str, Any]:
    """The one line a child writes for ``step``, sealed with ``seal``: ``(kind, value)``.

    Anything else (a line before the step's seal was given, ``seal`` None; a line without
    the step's seal; a line claiming to begin a step: only the keeper begins one; another
    step's number, an unknown key, an ``ok`` value that is not an object or is nested more
    than ``MAX_DEPTH`` deep) raises ``FrameError``.
    """
    message = _strict_json(line)
    if not isinstance(message, dict) or seal is None:
        raise FrameError("the code wrote to the grader's channel")
    kinds = [k for k in message if k not in ("end", "seal")]
    if (
        not hmac.compare_digest(str(message.get("seal", "")).encode(), seal.encode())
        or message.get("end") != step
        or type(message.get("end")) is not int
        or len(kinds) != 1
        or kinds[0] not in FRAME_KINDS
    ):
        raise FrameError("the code wrote to the grader's channel")
    kind = kinds[0]
    value = message[kind]
    _check_value(kind, value)
    return kind, value


def _check_value(kind: str, value: Any) -> None:
    if kind == "ok":
        if not isinstance(value, dict):
            raise FrameError("the result is a {type}, not an object", type=type(value).__name__)
        if depth(value) > MAX_DEPTH:
            raise _too_deep()
    elif not isinstance(value, str):
        raise FrameError("the code wrote to the grader's channel")


def encode_frame(token: str, records: list[dict[str, Any]]) -> bytes:
    """The keeper's result line for the runner."""
    return encode_line({"token": token, "steps": records})


def decode_frame(data: bytes, token: str, max_steps: int) -> list[dict[str, Any]]:
    """The step records of the keeper's frame; ``FrameError`` unless it is exactly what a
    keeper writes: one line, the job's token, at most ``max_steps`` well-typed records."""
    if not data.endswith(b"\n") or data.count(b"\n") != 1:
        raise FrameError("the keeper's result was cut off")
    frame = _strict_json(data)
    if not isinstance(frame, dict) or set(frame) != {"token", "steps"} or frame["token"] != token:
        raise FrameError("the result did not come from this job's keeper")
    records = frame["steps"]
    if not isinstance(records, list) or len(records) > max_steps:
        raise FrameError("the keeper's result has the wrong number of steps")
    for record in records:
        _check_record(record)
        record["words"] = _words(record["words"])
    return records


def _too_deep() -> FrameError:
    return FrameError("the result is nested more than {limit} levels deep", limit=str(MAX_DEPTH))


def _words(data: Any) -> Words | None:
    if data is None:
        return None
    try:
        return Words.from_json(data)
    except ValueError:
        raise FrameError("the keeper's result has malformed words") from None


def _check_record(record: Any) -> None:
    if not isinstance(record, dict) or set(record) != {*RECORD_FIELDS, "result", "words"}:
        raise FrameError("the keeper's result is malformed")
    for key, kind in RECORD_FIELDS.items():
        if not isinstance(record[key], kind):
            raise FrameError("the keeper's result has a malformed {key}", key=key)
    if record["status"] not in STEP_STATUSES or (record["result"] is None) == (
        record["status"] == "ok"
    ):
        raise FrameError("the keeper's result has a malformed status")
    if record["result"] is not None and not isinstance(record["result"], dict):
        raise FrameError("the keeper's result has a malformed result")


def depth(value: Any) -> int:
    """Nesting depth of lists/dicts (a scalar is 0), computed without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        )
        if children is None:
            continue
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:
            stack.extend((child, level + 1) for child in children)
    return deepest
