"""``kind: predict``: predictions graded against truths computed by torch.

``model`` is the exercise file, ``truth`` what torch gives (computed in a sandbox child by
``child/task``, kept in grading's truth cache), ``judge`` one answer against its truth,
``validation`` what ``graders validate`` reports beyond the model, ``cells`` and
``answer_cell`` the notebook side, ``audit`` the article against today's torch. Importing
``kind`` registers the kind; importing this package alone loads nothing else, so that
``cells`` reads a notebook without the rest.
"""

from importlib import import_module as _import_module

_PUBLIC = {
    "PredictExercise": "graders.kinds.predict.model",
    "PredictKind": "graders.kinds.predict.kind",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> object:
    if name in _PUBLIC:
        return getattr(_import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'graders.kinds.predict' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
