"""The package's layers, checked: every import in graders/ read from the source.

Layers, bottom to top, one per folder; a module may import from its own layer and the
layers below it, never above, and no module is in an import circle. Imports under
``if TYPE_CHECKING:`` are annotations only: they do not count for layers, but they do for
circles (two modules that name each other's types are one purpose, or miss a third).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "graders"

LAYERS: tuple[tuple[str, ...], ...] = (
    # What graders knows of languages (catalogues, names, keyboards, words): knowledge that
    # every layer reads and that needs nothing of graders.
    ("graders.i18n",),
    # The package's root: the values every layer passes (errors, the results document,
    # what graders tells a learner) and one thread-safe parser.
    (
        "graders.errors",
        "graders.results",
        "graders.results_upgrade",
        "graders.said",
        "graders.syntax",
        "graders.outbound",  # every request to another server, under one set of rules
        "graders.json_text",  # JSON another program sent, read by one rule
    ),
    # What graders knows of each LMS's files (names, columns): knowledge the intake reads.
    ("graders.lms",),
    ("graders.intake",),  # the door: outside text, names, ids and rosters checked once
    ("graders.course",),  # the course as loaded, and what it asks of a kind: no kind
    ("graders.answers",),  # the literal grammar: never executes anything
    ("graders.checker",),  # the toolkit a course's checkers are written with
    ("graders.kinds",),  # the kind contract, its registry, and the kinds
    ("graders.notebook",),
    ("graders.workspace",),  # a course opened for work
    ("graders.submissions",),  # a class's handed-in work, found and read
    ("graders.grading",),  # the pipeline: truths once, one submission graded
    ("graders.validate",),  # the course checked whole: its truths prepared as grading does
    ("graders.gradebook",),  # storage, and the instructor's decisions kept there
    ("graders.exports",),  # files for other tools
    ("graders.batch",),  # orchestration: a whole class graded
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


def imports(path: Path, types: bool = False) -> Iterator[tuple[int, str]]:
    """(line, absolute module) of every import in ``path`` that runs; with ``types``, those
    under TYPE_CHECKING too."""
    # Each file is parsed once for the module's many rules (seconds each otherwise).
    yield from _imports_read(str(path), str(PACKAGE), path.stat().st_mtime_ns, types)


@cache
def _imports_read(
    path: str, package: str, mtime_ns: int, types: bool
) -> tuple[tuple[int, str], ...]:
    return tuple(_parsed_imports(Path(path), types))


def _parsed_imports(path: Path, types: bool) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    skipped = (
        set()
        if types
        else {id(n) for node in ast.walk(tree) if _type_checking(node) for n in ast.walk(node)}
    )
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


def graders_imports(types: bool = False) -> Iterator[tuple[str, int, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, target in imports(path, types):
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


def test_a_layer_is_a_folder_or_a_module_of_the_root() -> None:
    # One entry per folder: a folder that needed two layers would mix them.
    nested = [prefix for prefixes in LAYERS for prefix in prefixes if prefix.count(".") != 1]
    assert nested == []


def test_no_module_is_in_an_import_circle() -> None:
    # A circle, even one closed by an import inside a function or by types only, means two
    # modules are one purpose or a third is missing: either way neither can be read or
    # tested alone.
    assert circles(import_graph(PACKAGE, types=True)) == []


@pytest.mark.parametrize(
    "entry",
    ["graders.grading.handed_in", "graders.integrations.ci.notebook", "graders.cli.ci"],
)
def test_grading_one_notebook_needs_no_storage_and_no_batch(entry: str) -> None:
    # `graders ci`, a Gradescope container and a test cell grade one notebook: importing the
    # gradebook (SQLAlchemy, ~1 s) or a batch's machinery would be paid by each of them.
    graph = import_graph(PACKAGE)
    reached, todo = set(), [entry]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(graph.get(module, ()))
    heavy = ("graders.gradebook", "graders.batch", "graders.service", "graders.reports")
    assert sorted(m for m in reached if m.startswith(heavy)) == []


def test_a_test_cell_finds_its_course_without_importing_nbformat(tmp_path: Path) -> None:
    # nbgrader starts one kernel per notebook, and its first test cell finds the course
    # through the nbgrader course's link file. nbformat imports jsonschema, which, where
    # Jupyter installed its format extras (rfc3987-syntax), builds 38 grammars at import:
    # 2-3 s more in every kernel, for a module the test cells never use.
    import json
    import subprocess
    import sys

    from graders.integrations.nbgrader_course import LINK_FILE
    from graders.notebook import POINTER_FILE

    course = tmp_path / "course"
    course.mkdir()
    (course / "course.yml").write_text("id: linked-course\n", encoding="utf-8")
    root = tmp_path / "nbgrader-course"
    cell_folder = root / "autograded" / "ann" / "ps1"
    cell_folder.mkdir(parents=True)
    link = {"course_id": "linked-course", "folder": str(course)}
    (root / LINK_FILE).write_text(json.dumps(link), encoding="utf-8")
    (cell_folder / POINTER_FILE).write_text(json.dumps({"course_id": "linked-course"}))
    program = (
        "import sys, graders.nbgrader\n"
        "from graders.integrations.nbgrader import course_file\n"
        "print(course_file())\n"
        "print(sorted(m for m in ('nbformat', 'jsonschema') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=cell_folder, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(course / "course.yml"), "[]"]


def test_the_circle_finder_sees_one(tmp_path: Path) -> None:
    package = tmp_path / "graders"
    (package / "batch").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "batch" / "__init__.py").write_text("")
    (package / "batch" / "plan.py").write_text("def f():\n    from .run import go\n")
    (package / "batch" / "run.py").write_text("from . import plan\n")
    (package / "batch" / "alone.py").write_text("from .run import go\n")
    (package / "batch" / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .alone import x\n"
    )
    (package / "batch" / "alone2.py").write_text("from .typed import y\n")
    (package / "batch" / "alone.py").write_text("from .run import go\nfrom .alone2 import z\n")
    assert circles(_graph_as(package)) == [["graders.batch.plan", "graders.batch.run"]]
    assert circles(_graph_as(package, types=True)) == [
        ["graders.batch.alone", "graders.batch.alone2", "graders.batch.typed"],
        ["graders.batch.plan", "graders.batch.run"],
    ]


@pytest.mark.parametrize(("folder", "most"), [("graders", 30), ("graders/batch", 12)])
def test_a_folder_holds_few_modules(folder: str, most: int) -> None:
    # A folder past this many modules holds more than one layer's worth: split it by layer.
    folders = [PACKAGE, *PACKAGE.rglob("*/")] if folder == "graders" else [PACKAGE.parent / folder]
    crowded = {
        str(f.relative_to(PACKAGE.parent)): n
        for f in folders
        if (n := len(list(f.glob("*.py")))) > most
    }
    assert crowded == {}


def import_graph(package: Path, types: bool = False) -> dict[str, set[str]]:
    """Module -> the graders modules it imports where it runs (any line), and with ``types``
    those it names under TYPE_CHECKING."""
    modules = {module_name(p) for p in package.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, _, target in graders_imports(types):
        while target not in modules and "." in target:
            target = target.rpartition(".")[0]  # `from x import name`: the module is x
        if target in modules and target != module:
            graph[module].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected parts of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            part = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(part) > 1:
                found.append(sorted(part))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def _graph_as(package: Path, types: bool = False) -> dict[str, set[str]]:
    global PACKAGE
    saved, PACKAGE = PACKAGE, package
    try:
        return import_graph(package, types)
    finally:
        PACKAGE = saved


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


# Folders under every layer: the sandbox runs learner code, so it holds nothing of graders;
# the language knowledge is read by every layer (the answers layer in a sandbox child too).
@pytest.mark.parametrize("folder", ["graders.sandbox", "graders.i18n"])
def test_a_folder_under_every_layer_imports_nothing_else_of_graders(folder: str) -> None:
    found = [
        f"{m}:{line} imports {t}"
        for m, line, t in graders_imports()
        if m.startswith(folder) and not t.startswith(folder)
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
# what runs in a code job's sandbox child (the compiler of learner code, the `compile` it
# gives that code, the annotations it reads), one thread of grader code per process.
PARSES_ON_ITS_OWN = ("graders/syntax.py", "graders/kinds/code/child/")


def test_every_tree_the_trusted_side_builds_is_built_one_at_a_time() -> None:
    # CPython 3.11's AST constructor is not safe across threads (graders.syntax): a parse
    # beside another one can fail on valid source and cost a learner their grade.
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        shown = str(path.relative_to(PACKAGE.parent))
        if shown.startswith(PARSES_ON_ITS_OWN):
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


# What runs in a sandbox child (each kind's ``child/``) imports, of graders, only its own
# folder and what a child needs: the checker toolkit (a code exercise's checker observes
# the learner's function with it) and the literal grammar (truths are described with it).
CHILD_MAY_IMPORT = ("graders.checker", "graders.answers")


def test_what_runs_in_a_sandbox_child_imports_nothing_that_grades() -> None:
    children = sorted(PACKAGE.glob("kinds/*/child"))
    assert [c.parent.name for c in children] == ["code", "predict"]  # every kind has one
    found = []
    for folder in children:
        own = module_name(folder / "__init__.py")
        for path in sorted(folder.glob("*.py")):
            for line, target in imports(path):
                allowed = (own, *CHILD_MAY_IMPORT)
                if target.startswith("graders") and not _within(target, allowed):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert found == []


def _within(target: str, packages: tuple[str, ...]) -> bool:
    return any(target == p or target.startswith(f"{p}.") for p in packages)
