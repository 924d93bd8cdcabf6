"""Exercise kinds: the contract (``contract``, the values it passes in ``base``), the
registry, and the built-in kinds.

``contract`` says what every kind answers for; ``registry`` finds a kind by its YAML
``kind`` or by the tag of an answer cell, and registers each kind with the course too
(``course.kinds``: the course reads exercise files with a kind's model, and imports no
kind); ``exercise_schema`` describes exercise files for editors; ``notebook_side`` is what
kinds share to lay out and read back notebook cells. What a kind computes in torch is kept
by its caller (``base.TruthStore``: grading's truth cache), never here. ``predict/`` and
``code/`` are the kinds.

Importing this package imports no kind: the registry imports the built-in kinds when it
is first asked for one, and a notebook's reader imports only each kind's cells module
(``registry.cell_readers``), so a learner's ``graders check`` never loads what grading needs.
"""

from typing import NamedTuple


class Builtin(NamedTuple):
    """Where a built-in kind lives, by module name (nothing is imported to know it)."""

    kind: str  # the module that registers it (``@register``)
    cells: str  # the module that reads its answer cells: ``CELL_TAG``, ``read_cell``,
    # ``cell_problem`` (the kind's own methods delegate to the same functions)
    task_modules: tuple[str, ...]  # what its jobs name: tasks and the keeper's checks,
    # imported by the warm fork servers before they fork (a child imports nothing new)
    runs_jobs: bool  # the kind's own ``runs_jobs``, known before it is imported: one
    # notebook's grader starts the sandbox before anything else when an answer runs code


# The built-in kinds, in the spirit of pytest's default_plugins, by their YAML `kind`.
BUILTIN_KINDS = {
    "predict": Builtin(
        "graders.kinds.predict.kind",
        "graders.kinds.predict.cells",
        ("graders.kinds.predict.child.task",),
        runs_jobs=False,
    ),
    "code": Builtin(
        "graders.kinds.code.kind",
        "graders.kinds.code.cells",
        ("graders.kinds.code.child.task", "graders.kinds.code.returned"),
        runs_jobs=True,
    ),
}
