"""`check` names what learners and instructors call, nothing inside graders.

``graders.check()`` (the pre-submit check in a cell), ``graders.nbgrader.check`` (released
notebooks' test cells) and the ``graders check`` command are public; a module or a
function of graders' own named ``check`` (or ``checks``, ``checkers``) would mean a fifth
thing. The sandbox's ``Job.check`` (the keeper's check a job names) is its own vocabulary,
a field, not a function here.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "graders"

# (module, function): the public functions named check, kept for those who call them.
PUBLIC_CHECKS = {
    ("graders/notebook/presubmit.py", "check"),  # graders.check()
    ("graders/integrations/nbgrader.py", "check"),  # graders.nbgrader.check(...)
}
AMBIGUOUS = {"check", "checks", "checkers", "check_report"}


def test_no_module_of_graders_is_named_check() -> None:
    found = sorted(
        str(p.relative_to(PACKAGE.parent)) for p in PACKAGE.rglob("*.py") if p.stem in AMBIGUOUS
    )
    assert found == []


def test_only_the_public_functions_are_named_check() -> None:
    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level: the functions callers import by name
            if isinstance(node, ast.FunctionDef) and node.name == "check":
                found.add((str(path.relative_to(PACKAGE.parent)), node.name))
    assert found == PUBLIC_CHECKS


def test_no_member_of_the_kind_contract_is_named_check() -> None:
    # A kind's validate rules are its file_problems: "check" would be the learner's check too.
    from graders.kinds.contract import CAPABILITIES, PARTS, members

    assert [p.__name__ for p in (*PARTS, *CAPABILITIES) if AMBIGUOUS & set(members(p))] == []
