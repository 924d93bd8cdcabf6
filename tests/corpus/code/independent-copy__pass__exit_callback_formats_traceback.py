# contextlib.ExitStack with a callback that logs the exception it is handed, as the
# contextlib docs' "catching exceptions" recipes do: traceback formats the traceback (it
# reads its frames to turn them into text), and the callback suppresses the error.
import contextlib
import traceback


def independent_copy(t):
    lines = []

    def report(kind, exc, tb):
        lines.extend(traceback.format_exception(kind, exc, tb))
        return kind is KeyError

    with contextlib.ExitStack() as stack:
        stack.push(report)
        raise KeyError("no cached copy yet")
    assert any("KeyError" in line for line in lines)
    return t.detach().clone()
