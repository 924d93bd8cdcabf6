"""The package's layers, checked: every import in graders/ read from the source.

Layers, bottom to top; a module may import from its own layer and the layers below it,
never above. Imports under ``if TYPE_CHECKING:`` are annotations only and do not count.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "graders"

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "graders.errors",
        "graders.by_hand",
        "graders.results",
        "graders.results_upgrade",
        "graders.i18n",
        "graders.said",
        "graders.syntax",
    ),
    ("graders.intake",),  # the door: outside text, names and ids checked once
    ("graders.course", "graders.course.model", "graders.course.marks"),
    ("graders.answers",),
    ("graders.kinds", "graders.checker", "graders.truth_child"),
    ("graders.kinds.load", "graders.kinds.exercise_schema"),
    ("graders.notebook",),
    ("graders.session", "graders.validate"),
    (
        "graders.batch",
        "graders.submissions",
        "graders.grading",
        "graders.gradebook",
        "graders.exports",
    ),
    ("graders.reports",),
    ("graders.integrations", "graders.nbgrader"),
    ("graders.service",),  # graders serve: the web application over the pipeline
    ("graders.cli",),
    ("graders.__main__",),  # `python -m graders`: the command line itself
)
# Importable from anywhere: the package root holds only the version and the lazy public
# API; the sandbox imports nothing of graders (checked below), so it sits under everything.
ANYWHERE = ("graders", "graders.sandbox")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute module) of every import in ``path`` that runs (not TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    skipped = {id(n) for node in ast.walk(tree) if _type_checking(node) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            # `from . import x` may name a submodule: count it as one.
            yield from ((node.lineno, f"{target}.{alias.name}") for alias in node.names)


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def layer(module: str) -> int | None:
    """The layer of a graders module (the longest matching prefix), None if anywhere."""
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
    return best[0] if best else None


def graders_imports() -> Iterator[tuple[str, int, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, target in imports(path):
            if target == "graders" or target.startswith("graders."):
                yield module_name(path), line, target


def test_every_module_has_a_layer() -> None:
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    unplaced = sorted(
        m
        for m in modules
        if layer(m) is None and m not in ANYWHERE and not m.startswith("graders.sandbox")
    )
    assert unplaced == []


def test_no_module_imports_a_higher_layer() -> None:
    upward = []
    for module, line, target in graders_imports():
        mine, theirs = layer(module), layer(target)
        if mine is not None and theirs is not None and theirs > mine:
            upward.append(f"{module}:{line} imports {target}")
    assert upward == []


@pytest.mark.parametrize(
    ("importer", "forbidden"),
    [
        pytest.param("graders.answers", "graders.kinds", id="answers-never-kinds"),
        pytest.param("graders.notebook", "graders.batch", id="notebook-never-batch"),
        pytest.param("graders.kinds", "graders.notebook", id="kinds-never-notebook"),
        pytest.param("graders.reports", "graders.integrations", id="reports-never-integrations"),
    ],
)
def test_named_rules(importer: str, forbidden: str) -> None:
    found = [
        f"{m}:{line} imports {t}"
        for m, line, t in graders_imports()
        if m.startswith(importer) and (t == forbidden or t.startswith(forbidden + "."))
    ]
    assert found == []


def test_the_sandbox_imports_nothing_of_graders() -> None:
    found = [
        f"{m}:{line} imports {t}"
        for m, line, t in graders_imports()
        if m.startswith("graders.sandbox") and not t.startswith("graders.sandbox")
    ]
    assert found == []


def test_nothing_imports_the_cli() -> None:
    # Only `python -m graders` runs it; the library never calls its own command line.
    found = [
        f"{m}:{line} imports {t}"
        for m, line, t in graders_imports()
        if not m.startswith(("graders.cli", "graders.__main__")) and t.startswith("graders.cli")
    ]
    assert found == []


def test_the_rules_see_a_violation(tmp_path: Path) -> None:
    # The reader itself can fail: a lower module importing a higher one is caught.
    bad = tmp_path / "graders" / "answers" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "from ..kinds import registry\nfrom graders.grading import pipeline as grading\n"
    )
    found = [target for _, target in _imports_as(bad, tmp_path / "graders")]
    assert found == ["graders.kinds.registry", "graders.grading.pipeline"]
    assert all(layer(t) > layer("graders.answers.bad") for t in found)  # type: ignore[operator]


def _imports_as(path: Path, package: Path) -> Iterator[tuple[int, str]]:
    global PACKAGE
    saved, PACKAGE = PACKAGE, package
    try:
        yield from list(imports(path))
    finally:
        PACKAGE = saved


# Where a syntax tree may be built without ``graders.syntax``'s lock: the module itself, and
# the code kind's compiler of learner code and the `compile` it gives that code, which run
# in a sandbox child of their own.
PARSES_ON_ITS_OWN = (
    "graders/syntax.py",
    "graders/kinds/code/learner.py",
    "graders/kinds/code/namespace.py",
)


def test_every_tree_the_trusted_side_builds_is_built_one_at_a_time() -> None:
    # CPython 3.11's AST constructor is not safe across threads (graders.syntax): a parse
    # beside another one can fail on valid source and cost a learner their grade.
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        shown = str(path.relative_to(PACKAGE.parent))
        if shown in PARSES_ON_ITS_OWN:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id == "ast" and node.attr in ("parse", "literal_eval"):
                    found.append(f"{shown}:{node.lineno} ast.{node.attr}")
    assert found == []


LONG_MODULE_LINES = 500


def test_a_long_module_says_why_it_is_one_piece() -> None:
    # Modules are split by purpose, never by length; one that grows past this length says
    # in its docstring why it is still one purpose ("One piece: ..."), or is split by what
    # it holds.
    unexplained = {
        str(path.relative_to(PACKAGE.parent)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len((text := path.read_text(encoding="utf-8")).splitlines())) > LONG_MODULE_LINES
        and "One piece:" not in (ast.get_docstring(ast.parse(text)) or "")
    }
    assert unexplained == {}
