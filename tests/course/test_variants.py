"""Exercise parameters and variants: the values, which learner gets which variant, rendering
in every language, and what `graders validate` says about templates (path:line:column)."""

from __future__ import annotations

import json
import re
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from variant_course import SCALED, variant_course

from graders.cli import main
from graders.course.load import load_course
from graders.course.params import Range, chosen, combinations, values_of, variant_number
from graders.course.variants import learner_variant
from graders.errors import SpecError
from graders.validate import validate_course


def test_a_range_includes_both_ends_and_the_base_comes_first() -> None:
    assert values_of(Range(range=(2, 5))) == [2, 3, 4, 5]
    every = combinations({"scale": Range(range=(2, 3)), "n": [4, 5]})
    assert every == [
        {"scale": 2, "n": 4},
        {"scale": 2, "n": 5},
        {"scale": 3, "n": 4},
        {"scale": 3, "n": 5},
    ]


def test_a_count_keeps_the_base_and_draws_the_rest_from_the_seed() -> None:
    params = {"scale": Range(range=(2, 9)), "n": [2, 3, 4]}
    four = chosen(params, 4, 0, "scaled-grad")
    assert len(four) == 4 and four[0] == {"scale": 2, "n": 2}
    assert len({json.dumps(v, sort_keys=True) for v in four}) == 4
    assert chosen(params, 4, 0, "scaled-grad") == four  # reproducible
    assert chosen(params, 4, 1, "scaled-grad") != four or chosen(params, 4, 2, "x") != four
    assert chosen(params, None, 0, "scaled-grad") == combinations(params)
    assert chosen(params, 100, 0, "scaled-grad") == combinations(params)


def test_learners_spread_over_the_variants_reproducibly() -> None:
    numbers = [variant_number(0, "scaled-grad", f"s{i}", 8) for i in range(800)]
    assert numbers == [variant_number(0, "scaled-grad", f"s{i}", 8) for i in range(800)]
    counts = Counter(numbers)
    assert sorted(counts) == list(range(1, 9))
    assert min(counts.values()) > 50  # about 100 each
    # Another exercise, or another course seed, deals the variants out anew.
    other = [variant_number(0, "other", f"s{i}", 8) for i in range(800)]
    reseeded = [variant_number(7, "scaled-grad", f"s{i}", 8) for i in range(800)]
    assert other != numbers and reseeded != numbers
    assert variant_number(0, "scaled-grad", "ada", 1) == 1


def test_the_base_variant_is_what_the_course_shows_and_every_variant_is_rendered(
    tmp_path: Path,
) -> None:
    loaded = load_course(variant_course(tmp_path) / "course.yml")
    ex = loaded.exercises["scaled-grad"]
    assert [v.number for v in ex.variants] == [1, 2, 3, 4]
    base = ex.variants[0]
    assert base.values == {"scale": 2, "n": 2}
    assert ex.exercise == base.exercise
    assert ex.exercise.setup == (
        "import torch\na = torch.ones(2, requires_grad=True)\nb = a.clone() * 2\n"
        "b.sum().backward()\n"
    )
    assert ex.template.setup.count("{{") == 2
    for v in ex.variants:
        assert "{{" not in v.exercise.setup + v.exercise.title
        assert v.exercise.params == {name: [value] for name, value in v.values.items()}
        n = v.values["n"]
        assert v.exercise.questions[0].misconceptions[0].answer == f"tensor({[1.0] * n})"
    hashes = {v.exercise.content_hash() for v in ex.variants}
    assert len(hashes) == 4  # each variant's truths are cached apart
    plain = loaded.exercises["clone-basics"]
    assert plain.template is None and plain.variants == ()
    assert learner_variant(plain, loaded.course, "ada") is None


def test_texts_are_rendered_in_every_language(tmp_path: Path) -> None:
    bilingual = SCALED.replace(
        'explain: "Each element of `b` is {{ scale }} times an element of `a`."',
        "explain:\n      en: 'Each element is {{ scale }} times.'\n"
        "      zh: '每个元素是 {{ scale }} 倍。'",
    )
    root = variant_course(tmp_path, {"exercises/scaled-grad.yml": bilingual})
    course = (root / "course.yml").read_text().replace("seed: 0", "seed: 0\nlanguages: [en, zh]")
    (root / "course.yml").write_text(course)
    loaded = load_course(root / "course.yml")
    for v in loaded.exercises["scaled-grad"].variants:
        zh = v.exercise.in_language("zh").questions[0].explain
        assert zh == f"每个元素是 {v.values['scale']} 倍。"
    zh_course = loaded.in_language("zh")
    assert zh_course.exercises["scaled-grad"].exercise.questions[0].explain == "每个元素是 2 倍。"


def problems(root: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_course(root / "course.yml")
    return [str(p) for p in info.value.problems]


BROKEN = [
    pytest.param(
        "b = a.clone() * {{ scale }}",
        "b = a.clone() * {{ scal }}",
        "exercises/scaled-grad.yml:8:1: setup: 'scal' is not a parameter "
        "(did you mean 'scale'?) (params: scale, n)",
        id="unknown-name",
    ),
    pytest.param(
        "  n: [2, 3, 4]\n",
        "  n: [2, 3, 4]\n  unused: [1, 2]\n",
        "exercises/scaled-grad.yml:8:3: params.unused: no text or code of the exercise uses it",
        id="unused-param",
    ),
    pytest.param(
        'prompt: "What is `b.shape`?"',
        'prompt: "What is {{ n + }}?"',
        "exercises/scaled-grad.yml:23:5: questions[1].prompt: not a valid template: "
        "unexpected 'end of print statement' (line 1)",
        id="template-syntax",
    ),
    pytest.param(
        "  scale: {range: [2, 9]}",
        "  scale: {range: [9, 2]}",
        "exercises/scaled-grad.yml:6:11: params.scale.range: the range [9, 2] is empty",
        id="empty-range",
    ),
    pytest.param(
        "  n: [2, 3, 4]",
        "  n: [2, 3, 3]",
        "exercises/scaled-grad.yml:7:3: params.n: 3 is listed twice",
        id="repeated-value",
    ),
    pytest.param(
        "  n: [2, 3, 4]",
        "  n: [2, {a: 1}]",
        "exercises/scaled-grad.yml:7:3: params.n: {'a': 1} is not a number, a string, a bool",
        id="not-a-plain-value",
    ),
    pytest.param(
        "  n: [2, 3, 4]",
        "  n: {range: [1, 40]}",
        "exercises/scaled-grad.yml:5:1: params: 320 combinations of values; at most 256",
        id="too-many-combinations",
    ),
    pytest.param(
        "    expr: a.grad\n",
        "    expr: a.grad{{ '' if n == 2 else ' +' }}\n",
        "exercises/scaled-grad.yml:16:5: questions.0.expr: not valid an expression",
        id="a-variant-that-is-not-python",
    ),
    pytest.param(
        "  - id: shape\n",
        "  - id: shape\n    article_says: \"'{{ n }}'\"\n",
        None,
        id="article-says-is-not-a-template",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), BROKEN)
def test_template_problems_name_their_place(
    tmp_path: Path, old: str, new: str, expected: str | None
) -> None:
    assert old in SCALED
    root = variant_course(tmp_path, {"exercises/scaled-grad.yml": SCALED.replace(old, new)})
    if expected is None:
        loaded = load_course(root / "course.yml")
        assert loaded.exercises["scaled-grad"].exercise.questions[1].article_says == "'{{ n }}'"
        return
    found = problems(root)
    assert any(p.startswith(expected) for p in found), found


def test_a_variant_that_is_not_python_names_its_values(tmp_path: Path) -> None:
    broken = SCALED.replace("    expr: a.grad\n", "    expr: a.grad{{ '' if n == 2 else ' +' }}\n")
    found = problems(variant_course(tmp_path, {"exercises/scaled-grad.yml": broken}))
    # The base (n=2) renders valid Python; the first variant with another n is named.
    assert len(found) == 1, found
    assert re.search(r"\(\d \(scale=\d, n=[34]\)\)$", found[0]), found


def test_validate_renders_the_combinations_no_learner_has_yet(tmp_path: Path) -> None:
    # Only one scale breaks, and no variant of the four has it: loading works, validate
    # does not (a larger variants.count would give it to learners).
    loaded = load_course(variant_course(tmp_path) / "course.yml")
    scales = {v.values["scale"] for v in loaded.exercises["scaled-grad"].variants}
    bad = min(set(range(2, 10)) - scales)
    broken = SCALED.replace(
        '    explain: "{{ n }} elements, each {{ scale }}."',
        f'    explain: "{{{{ 1 // (scale - {bad}) }}}} elements."',
    )
    root = variant_course(tmp_path / "again", {"exercises/scaled-grad.yml": broken})
    load_course(root / "course.yml")
    with pytest.raises(SpecError) as info:
        validate_course(root / "course.yml", truth=False)
    (problem,) = info.value.problems
    assert str(problem).startswith(
        f"exercises/scaled-grad.yml:29:5: questions[2].explain: cannot render with "
        f"scale={bad}, n=2: integer division or modulo by zero"
    )


def test_an_exercise_without_params_is_never_rendered(tmp_path: Path) -> None:
    # Jinja's syntax in an exercise without parameters is plain text, as before.
    plain = (
        "id: braces\ntitle: 'Sets {{ like this }}'\nsection: '§1a'\nkind: predict\n"
        "setup: |\n  s = {1}\nquestions:\n  - id: q\n    prompt: 'What is `{{1} | {2}}`?'\n"
        "    expr: '{1} | {2}'\n    explain: 'A set.'\n"
    )
    root = variant_course(tmp_path, {"exercises/braces.yml": plain})
    loaded = load_course(root / "course.yml")
    ex = loaded.exercises["braces"]
    assert ex.exercise.title == "Sets {{ like this }}" and ex.variants == ()
    assert ex.exercise.questions[0].prompt == "What is `{{1} | {2}}`?"


def test_graders_variant_prints_a_learners_variant(tmp_path: Path) -> None:
    root = variant_course(tmp_path)
    loaded = load_course(root / "course.yml")
    mine = learner_variant(loaded.exercises["scaled-grad"], loaded.course, "ada")
    assert mine is not None
    runner = CliRunner()
    result = runner.invoke(main, ["variant", "ada", "scaled-grad", "--course", str(root)])
    assert result.exit_code == 0, result.output
    values = f"scale={mine.values['scale']}, n={mine.values['n']}"
    assert result.output == f"ada · scaled-grad: variant {mine.number} of 4 ({values})\n"
    result = runner.invoke(main, ["variant", "ada", "ps1", "--course", str(root), "--json"])
    assert json.loads(result.output) == [
        {"exercise": "clone-basics", "variant": None, "of": 1, "values": {}},
        {"exercise": "scaled-grad", "variant": mine.number, "of": 4, "values": dict(mine.values)},
    ]
    result = runner.invoke(main, ["variant", "ada", "scaled-grd", "--course", str(root)])
    assert result.exit_code == 2
    assert "no exercise or assignment 'scaled-grd' (did you mean 'scaled-grad'?)" in result.output


def test_a_gradescope_autograder_grades_the_submitter_gradescope_names(tmp_path: Path) -> None:
    # The learner is Gradescope's users[0] (its email, or its SID), never a file of the upload.
    root = variant_course(tmp_path)
    runner = CliRunner()
    for learner_id in ("email", "sid"):
        out = tmp_path / f"ag-{learner_id}.zip"
        args = ["gradescope", "ps1", "--course", str(root), "--out", str(out)]
        result = runner.invoke(main, [*args, "--learner-id", learner_id])
        assert result.exit_code == 0, result.output
        with zipfile.ZipFile(out) as archive:
            script = archive.read("run_autograder").decode()
        assert f"--student-from gradescope-{learner_id}" in script and "--student " not in script
    # A roster that cannot map the field chosen is refused before anything is written.
    roster = tmp_path / "roster.csv"
    roster.write_text("student,email\nada,ada@example.org\n")
    out = tmp_path / "ag.zip"
    args = ["gradescope", "ps1", "--course", str(root), "--out", str(out), "--roster", str(roster)]
    refused = runner.invoke(main, [*args, "--learner-id", "sid"])
    assert refused.exit_code == 2 and "no student has a sis_user_id" in refused.output
    assert not out.exists()
    assert runner.invoke(main, args).exit_code == 0
    with zipfile.ZipFile(out) as archive:
        assert archive.read("course/roster.csv") == roster.read_bytes()
