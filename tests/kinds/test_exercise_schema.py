"""`graders schema`: a valid JSON Schema (checked by check-jsonschema's metaschema check) that
accepts every exercise of the bundled course and rejects, as `graders validate` does, each
file of a table of broken ones, with the error an editor shows naming the broken field."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from graders.course.load import load_exercise
from graders.kinds.exercise_schema import exercise_schema

REPO = Path(__file__).resolve().parent.parent.parent
CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"

PREDICT = {
    "id": "clone-basics",
    "title": "clone()",
    "section": "§1a",
    "kind": "predict",
    "setup": "import torch\na = torch.tensor(1.0, requires_grad=True)\n",
    "questions": [
        {
            "id": "grad",
            "prompt": "What is `a.clone().requires_grad`?",
            "expr": "a.clone().requires_grad",
            "explain": "clone keeps requires_grad.",
            "misconceptions": [{"answer": "False", "name": "clone-drops", "explain": "It keeps."}],
        }
    ],
}
CODE = {
    "id": "clone-basics",
    "title": "A copy",
    "section": "§3",
    "kind": "code",
    "prompt": "Write `copy(t)`.",
    "entry": "copy",
    "signature": "copy(t) -> Tensor",
    "template": "def copy(t):\n    ...\n",
    "solution": "copy.py",
    "checker": "checkers/copy.py",
    "checks": [{"id": "values", "explain": "The values are t's."}],
    "samples": [{"file": "samples/copy/detach.py", "expect": {"values": "fail"}}],
}


def question(**changes: Any) -> dict[str, Any]:
    q = {**PREDICT["questions"][0], **changes}  # type: ignore[index]
    return {**PREDICT, "questions": [{k: v for k, v in q.items() if v is not None}]}


def code(**changes: Any) -> dict[str, Any]:
    return {k: v for k, v in {**CODE, **changes}.items() if v is not None}


# (id, file, the field the editor's error names)
BAD = [
    ("expr-and-run", question(run="a.clone().backward()"), "questions/0"),
    ("neither-expr-nor-run", question(expr=None), "questions/0"),
    ("expr-not-code", question(expr=3), "questions/0/expr"),
    ("unknown-kind", {**PREDICT, "kind": "predcit"}, "kind"),
    ("no-kind", {k: v for k, v in PREDICT.items() if k != "kind"}, ""),
    ("section-not-in-article", {**PREDICT, "section": "§9"}, "section"),
    ("question-section", question(section="§7"), "questions/0/section"),
    ("zero-points", question(points=0), "questions/0/points"),
    ("strict-unknown-lesson", question(strict=["dtpye"]), "questions/0/strict/0"),
    ("strict-not-a-list", question(strict="dtype"), "questions/0/strict"),
    ("typo-in-a-key", question(promt="x"), "questions/0"),
    ("no-questions", {**PREDICT, "questions": []}, "questions"),
    ("id-not-an-ident", {**PREDICT, "id": "Clone Basics"}, "id"),
    ("text-per-language-not-text", question(explain={"en": ["a"]}), "questions/0/explain/en"),
    (
        "misconception-without-name",
        question(misconceptions=[{"answer": "1", "explain": "x"}]),
        "questions/0/misconceptions/0",
    ),
    ("predict-field-in-code", code(questions=[]), ""),
    ("checker-outside-the-course", code(checker="checkers/../../x.py"), "checker"),
    ("solution-in-a-folder", code(solution="sub/copy.py"), "solution"),
    ("sample-outside-the-course", code(samples=[{"file": "../x.py"}]), "samples/0/file"),
    (
        "sample-outcome-unknown",
        code(samples=[{"file": "s/a.py", "expect": {"values": "passes"}}]),
        "samples/0/expect/values",
    ),
    ("entry-not-a-name", code(entry="my copy"), "entry"),
    ("timeout-too-long", code(timeout_s=601), "timeout_s"),
    ("no-checks", code(checks=[]), "checks"),
]


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return exercise_schema()


def test_the_schema_passes_the_metaschema_check_and_accepts_the_bundled_course(
    schema: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    meta = subprocess.run(
        [str(CHECK_JSONSCHEMA), "--check-metaschema", str(path)], capture_output=True, text=True
    )
    assert meta.returncode == 0, meta.stdout + meta.stderr
    files = sorted(str(p) for p in (REPO / "exercises").glob("*.yml"))
    assert len(files) > 20
    course = subprocess.run(
        [str(CHECK_JSONSCHEMA), "--schemafile", str(path), *files], capture_output=True, text=True
    )
    assert course.returncode == 0, course.stdout + course.stderr


def test_kinds_are_told_apart_by_kind(schema: dict[str, Any]) -> None:
    assert "anyOf" not in schema
    branches = {
        b["if"]["properties"]["kind"]["const"]: b["then"]["$ref"]
        for b in schema["oneOf"]
        if "if" in b
    }
    assert branches == {"code": "#/$defs/CodeExercise", "predict": "#/$defs/PredictExercise"}
    for kind, ref in branches.items():
        assert schema["$defs"][ref.rsplit("/", 1)[1]]["properties"]["kind"]["const"] == kind


@pytest.mark.parametrize(
    "good",
    [PREDICT, question(expr=None, run="a.sum().backward()"), question(strict=["dtype"]), CODE],
)
def test_good_files_pass(schema: dict[str, Any], good: dict[str, Any]) -> None:
    jsonschema.validate(good, schema)


@pytest.mark.parametrize(("data", "field"), [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_a_broken_file_is_refused_by_the_schema_and_by_validate(
    schema: dict[str, Any], data: dict[str, Any], field: str, tmp_path: Path
) -> None:
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    assert errors, "the schema accepts it"
    # The editor's error is the one of the branch the file's kind names.
    best = jsonschema.exceptions.best_match(errors)
    where = "/".join(str(p) for p in best.absolute_path)
    assert where == field, best.message

    path = tmp_path / "exercises" / f"{data.get('id')}.yml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    for folder in ("checkers", "solutions", "samples/copy"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("checkers/copy.py", "solutions/copy.py", "samples/copy/detach.py"):
        shutil.copy(REPO / "checkers" / "independent-copy.py", tmp_path / name)
    loaded, problems = load_exercise(path, tmp_path)
    assert loaded is None and problems, "graders validate accepts it"
