"""`graders validate`: every broken-file case names path:line:column and exits 2."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from lone_course import BILINGUAL_COURSE, BILINGUAL_EXERCISE, lone_course
from small_course import small_course, text

from graders.cli import main
from graders.course.load import load_course
from graders.errors import SpecError

# Its many in-process commands share one warm sandbox (tests/warm_sandbox.py).
pytestmark = pytest.mark.usefixtures("warm_sandbox")

COURSE = text("course.yml")
EXERCISE = text("exercises/clone-basics.yml")


def make_course(
    root: Path, course: str = COURSE, exercise: str = EXERCISE, extra: dict[str, str] | None = None
) -> Path:
    """The small course with ``course.yml`` and ``clone-basics.yml`` as given, and ``extra``."""
    files = {"course.yml": course, "exercises/clone-basics.yml": exercise}
    files.update({f"exercises/{name}": textwrap.dedent(t) for name, t in (extra or {}).items()})
    return small_course(root, files) / "course.yml"


def problems_of(course_file: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_course(course_file)
    return [str(p) for p in info.value.problems]


def test_a_valid_course_loads(tmp_path: Path) -> None:
    loaded = load_course(make_course(tmp_path))
    assert list(loaded.exercises) == ["clone-basics", "detach-basics", "independent-copy"]
    assert loaded.course.assignments[0].exercises[0].id == "clone-basics"


BROKEN_EXERCISES = [
    pytest.param(
        "    points: 1\n",
        "    points: two\n",
        "exercises/clone-basics.yml:17:5: questions[0].points",
        id="points-not-a-number",
    ),
    pytest.param(
        "    explain: clone copies.\n",
        "    explain: clone copies.\n    hint: nope\n",
        "exercises/clone-basics.yml:19:5: questions[0].hint: unknown key",
        id="unknown-key",
    ),
    pytest.param(
        '    prompt: "What is `b.requires_grad`?"\n',
        "",
        "exercises/clone-basics.yml:21:5: questions[1].prompt: missing required field",
        id="missing-prompt",
    ),
    pytest.param(
        "kind: predict",
        "kind: predikt",
        "exercises/clone-basics.yml:4:1: kind: unknown kind 'predikt' (did you mean 'predict'?)",
        id="unknown-kind",
    ),
    pytest.param(
        "  - id: flag",
        "  - id: shares",
        "exercises/clone-basics.yml:21:5: questions[1].id: duplicate question id 'shares'",
        id="duplicate-question",
    ),
    pytest.param(
        "  b = a.clone()\n",
        "  b = a.clone(\n",
        "exercises/clone-basics.yml:5:1: setup: not valid Python statements",
        id="setup-syntax",
    ),
    pytest.param(
        "    expr: b.requires_grad\n",
        "    expr: b.requires_grad\n    run: b.sum()\n",
        "exercises/clone-basics.yml:21:5: questions[1]: give exactly one of 'expr'",
        id="expr-and-run",
    ),
    pytest.param(
        'section: "§1a"',
        'section: "§9"',
        "exercises/clone-basics.yml:3:1: section: '§9' is not an article section",
        id="bad-section",
    ),
    pytest.param(
        "id: clone-basics",
        "id: other-name",
        "exercises/clone-basics.yml:1:1: id: 'other-name' must equal the file name",
        id="id-not-stem",
    ),
    pytest.param(
        "  - id: shares",
        "  - id: shares\n    id: again",
        "exercises/clone-basics.yml:11:5: duplicate key 'id'",
        id="duplicate-key",
    ),
    pytest.param("questions:", "questions: [", "exercises/clone-basics.yml:", id="yaml-syntax"),
    pytest.param(
        "    explain: clone copies.\n",
        '    explain: clone copies.\n    accept: ["same as a"]\n',
        "exercises/clone-basics.yml:19:14: questions[0].accept.0: not an answer literal",
        id="accept-not-a-literal",
    ),
    pytest.param(
        "    explain: clone copies.\n",
        "    explain: clone copies.\n    strict: [dtpye]\n",
        "exercises/clone-basics.yml:19:14: questions[0].strict[0]: 'dtpye' is not a lesson a "
        "question keeps strict (dtype, type) (did you mean 'dtype'?)",
        id="strict-lesson-misspelt",
    ),
    pytest.param(
        "    explain: clone copies.\n",
        "    explain: clone copies.\n    strict: dtype\n",
        "exercises/clone-basics.yml:19:5: questions[0].strict: Input should be a valid list",
        id="strict-not-a-list",
    ),
]


@pytest.mark.parametrize("old, new, expected", BROKEN_EXERCISES)
def test_broken_exercise_is_reported_with_its_location(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    assert old in EXERCISE
    problems = problems_of(make_course(tmp_path, exercise=EXERCISE.replace(old, new, 1)))
    assert any(p.startswith(expected) for p in problems), problems


BROKEN_COURSES = [
    pytest.param(
        "[clone-basics,",
        "[clone-basic,",
        "course.yml:11:17: assignment 'ps1' names a missing exercise 'clone-basic' (did you mean "
        "'clone-basics'?)",
        id="missing-exercise",
    ),
    pytest.param(
        '    due: "2026-10-05T23:59:00+00:00"',
        '    due: "2026-10-05T23:59:00"',
        "course.yml:9:5: assignments[0].due: Input should have timezone info",
        id="due-without-timezone",
    ),
    pytest.param(
        "seed: 0",
        "seed: 0\nsede: 1",
        "course.yml:5:1: sede: unknown key (did you mean 'seed'?)",
        id="unknown-course-key",
    ),
    pytest.param(
        "  - id: ps1\n",
        "  - id: ps1\n    points: 3\n",
        "course.yml:8:5: assignments[0].points: unknown key",
        id="unknown-assignment-key",
    ),
]


@pytest.mark.parametrize("old, new, expected", BROKEN_COURSES)
def test_broken_course_file_is_reported_with_its_location(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    assert old in COURSE
    problems = problems_of(make_course(tmp_path, course=COURSE.replace(old, new, 1)))
    assert any(p.startswith(expected) for p in problems), problems


def test_strict_lessons_load(tmp_path: Path) -> None:
    exercise = EXERCISE.replace(
        "    explain: clone copies.\n", "    explain: clone copies.\n    strict: [dtype, type]\n", 1
    )
    loaded = load_course(make_course(tmp_path, exercise=exercise))
    shares, flag = loaded.exercises["clone-basics"].exercise.questions
    assert (shares.strict, flag.strict) == (["dtype", "type"], [])
    assert shares.rules.dtype and shares.rules.type and not (flag.rules.dtype or flag.rules.type)


GRADIENT = """\
id: gradient
title: a gradient
section: "§1a"
kind: predict
setup: |
  import torch
  a = torch.tensor(1.0, requires_grad=True)
  (a * 2).backward()
questions:
  - id: grad
    prompt: "What is `a.grad`?"
    expr: a.grad
    explain: Two.
    misconceptions:
      - {answer: "tensor(2)", name: int-gradient, explain: "Gradients are floats."}
"""


@pytest.mark.parametrize(
    ("strict", "reported"),
    [
        pytest.param("", True, id="by-value"),
        pytest.param("    strict: [dtype]\n", False, id="strict-dtype"),
    ],
)
def test_a_misconception_that_earns_the_points_is_reported(
    tmp_path: Path, strict: str, reported: bool
) -> None:
    gradient = GRADIENT.replace("    explain: Two.\n", "    explain: Two.\n" + strict)
    course = make_course(
        tmp_path,
        course=COURSE.replace("[clone-basics,", "[gradient, clone-basics,", 1),
        extra={"gradient.yml": gradient},
    )
    result = CliRunner().invoke(main, ["validate", "--course", str(course)])
    expected = (
        "exercises/gradient.yml:15:10: questions[0].misconceptions[0].answer: 'tensor(2)' earns "
        "the points; it is torch's value written as another type: if the type is the lesson, "
        "mark the question `strict: [dtype]` or `strict: [type]`"
    )
    assert (expected in result.output, result.exit_code) == (reported, 2 if reported else 0), (
        result.output
    )


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    broken = EXERCISE.replace("    points: 1\n", "    points: two\n", 1).replace(
        "kind: predict", "kind: predict\ncolour: red"
    )
    course = COURSE.replace("[clone-basics,", "[clone-basics, nowhere,", 1)
    problems = problems_of(make_course(tmp_path, course=course, exercise=broken))
    assert len(problems) == 3, problems


def test_validate_command_exits_2_and_prints_locations(tmp_path: Path) -> None:
    course = make_course(
        tmp_path, exercise=EXERCISE.replace("    points: 1\n", "    points: two\n", 1)
    )
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course)])
    assert result.exit_code == 2
    assert "exercises/clone-basics.yml:17:5: questions[0].points" in result.output


def test_validate_without_truth_passes_on_a_good_course(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["validate", "--no-truth", "--course", str(make_course(tmp_path))]
    )
    assert result.exit_code == 0, result.output
    assert "course OK: 7 questions and checks in 3 exercises" in result.output


def test_schema_describes_exercise_files() -> None:
    import json

    result = CliRunner().invoke(main, ["schema"])
    schema = json.loads(result.output)
    assert result.exit_code == 0
    assert "questions" in json.dumps(schema)


def test_a_bilingual_course_loads_in_its_default_language(tmp_path: Path) -> None:
    loaded = load_course(
        lone_course(tmp_path, course=BILINGUAL_COURSE, exercise=BILINGUAL_EXERCISE)
    )
    exercise = loaded.exercises["clone-basics"].exercise
    assert loaded.course.languages == ["en", "zh"]
    assert (loaded.course.title, exercise.title, exercise.questions[0].prompt) == (
        "Tiny course",
        "clone basics",
        "a.data_ptr() == b.data_ptr()?",
    )


def test_in_language_gives_every_text_in_that_language(tmp_path: Path) -> None:
    loaded = load_course(
        lone_course(tmp_path, course=BILINGUAL_COURSE, exercise=BILINGUAL_EXERCISE)
    ).in_language("zh")
    exercise = loaded.exercises["clone-basics"].exercise
    q = exercise.questions[0]
    assert (loaded.course.title, loaded.course.assignments[0].title) == ("小课程", "第一次")
    assert (exercise.title, q.prompt, q.explain, q.misconceptions[0].explain) == (
        "clone() 基础",
        "a.data_ptr() == b.data_ptr() 的结果是什么？",
        "clone() 会复制数据。",
        "那是 detach()。",
    )
    assert (q.expr, q.misconceptions[0].answer) == (
        "a.data_ptr() == b.data_ptr()",
        "True",
    )  # grading is language-independent
    assert exercise.in_language("en").title == "clone basics"


def test_a_text_without_the_language_falls_back_to_the_default(tmp_path: Path) -> None:
    exercise = BILINGUAL_EXERCISE.replace(
        '{en: "b.requires_grad?", zh: "b.requires_grad 是什么？"}', '"b.requires_grad?"'
    )
    loaded = load_course(lone_course(tmp_path, course=BILINGUAL_COURSE, exercise=exercise))
    assert (
        loaded.in_language("zh").exercises["clone-basics"].exercise.questions[1].prompt
        == "b.requires_grad?"
    )


def test_the_truth_cache_key_does_not_depend_on_the_language(tmp_path: Path) -> None:
    loaded = load_course(
        lone_course(tmp_path, course=BILINGUAL_COURSE, exercise=BILINGUAL_EXERCISE)
    )
    exercise = loaded.exercises["clone-basics"].exercise
    assert exercise.in_language("zh").content_hash() == exercise.content_hash()


def test_in_language_refuses_a_language_the_course_lacks(tmp_path: Path) -> None:
    from graders.errors import UsageError

    loaded = load_course(
        lone_course(tmp_path, course=BILINGUAL_COURSE, exercise=BILINGUAL_EXERCISE)
    )
    with pytest.raises(
        UsageError, match=r"the course has no language 'fr' \(its languages: en, zh\)"
    ):
        loaded.in_language("fr")


def test_a_question_may_cite_its_own_section(tmp_path: Path) -> None:
    loaded = load_course(
        lone_course(tmp_path, course=BILINGUAL_COURSE, exercise=BILINGUAL_EXERCISE)
    )
    entry = loaded.exercises["clone-basics"]
    assert [item.section for item in entry.kind.items(entry.exercise)] == ["§1a", "beyond"]


BROKEN_TEXTS = [  # (file, old, new, the one problem reported)
    pytest.param(
        "exercise",
        "{en: clone copies., zh:",
        "{zh:",
        "exercises/clone-basics.yml:15:5: questions[0].explain: no text in the course's default language 'en'",
        id="no-default-language",
    ),
    pytest.param(
        "exercise",
        "{en: That is detach().,",
        "{en: no,",
        "exercises/clone-basics.yml:17:56: questions[0].misconceptions[0].explain.en: expected text, got False",
        id="yaml-bool-not-text",
    ),
    pytest.param(
        "exercise",
        "section: beyond",
        "section: beyon",
        "exercises/clone-basics.yml:21:5: questions[1].section: 'beyon' is not an article section (§1a, §1b, §2, §3, §4, §5, beyond) (did you mean 'beyond'?)",
        id="bad-question-section",
    ),
    pytest.param(
        "exercise",
        "section: beyond",
        "section: supplement",
        "exercises/clone-basics.yml:21:5: questions[1].section: 'supplement' is not an article section (§1a, §1b, §2, §3, §4, §5, beyond) (the article's supplement is an empty heading: cite 'beyond')",
        id="the-empty-supplement",
    ),
    pytest.param(
        "course",
        "languages: [en, zh]",
        "languages: [en, zh, zh]",
        "course.yml:4:1: languages: languages listed twice: zh",
        id="language-twice",
    ),
    pytest.param(
        "course",
        "languages: [en, zh]",
        "languages: []",
        "course.yml:4:1: languages: List should have at least 1 item after validation, not 0",
        id="no-language",
    ),
]


@pytest.mark.parametrize("where, old, new, expected", BROKEN_TEXTS)
def test_broken_text_is_reported_with_its_location(
    tmp_path: Path, where: str, old: str, new: str, expected: str
) -> None:
    files = {"course": BILINGUAL_COURSE, "exercise": BILINGUAL_EXERCISE}
    assert old in files[where]
    files[where] = files[where].replace(old, new, 1)
    assert problems_of(lone_course(tmp_path, **files)) == [expected]


def test_a_language_that_is_no_code_is_reported(tmp_path: Path) -> None:
    problems = problems_of(
        lone_course(
            tmp_path,
            course=BILINGUAL_COURSE.replace("[en, zh]", "[en, Chinese]"),
            exercise=BILINGUAL_EXERCISE,
        )
    )
    assert problems == [
        "course.yml:4:17: languages[1]: String should match pattern '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$', got 'Chinese'"
    ]


LANGUAGE_PROBLEMS = [  # (course, exercise, the one problem validate reports)
    pytest.param(
        BILINGUAL_COURSE,
        BILINGUAL_EXERCISE.replace(
            "zh: clone() 会复制数据。}", "zh: clone() 会复制数据。, zn: 复制}"
        ),
        "exercises/clone-basics.yml:15:54: questions[0].explain.zn: unknown language 'zn' (the course's languages: en, zh)",
        id="unknown-language",
    ),
    pytest.param(
        BILINGUAL_COURSE.replace("{en: First, zh: 第一次}", "First"),
        BILINGUAL_EXERCISE,
        "course.yml:8:5: assignments[0].title: no zh text (the course's languages: en, zh)",
        id="assignment-title",
    ),
    pytest.param(
        BILINGUAL_COURSE,
        BILINGUAL_EXERCISE.replace(
            "title: {en: clone basics, zh: clone() 基础}", "title: clone basics"
        ),
        "exercises/clone-basics.yml:2:1: title: no zh text (the course's languages: en, zh)",
        id="exercise-title",
    ),
    pytest.param(
        BILINGUAL_COURSE,
        BILINGUAL_EXERCISE.replace(
            '{en: "b.requires_grad?", zh: "b.requires_grad 是什么？"}', '{en: "b.requires_grad?"}'
        ),
        "exercises/clone-basics.yml:19:5: questions[1].prompt: no zh text (the course's languages: en, zh)",
        id="mapping-without-zh",
    ),
    pytest.param(
        BILINGUAL_COURSE,
        BILINGUAL_EXERCISE.replace(", zh: 那是 detach()。}", "}"),
        "exercises/clone-basics.yml:17:46: questions[0].misconceptions[0].explain: no zh text (the course's languages: en, zh)",
        id="misconception",
    ),
]


@pytest.mark.parametrize("course, exercise, expected", LANGUAGE_PROBLEMS)
def test_validate_reports_every_text_missing_a_language_or_in_an_unknown_one(
    tmp_path: Path, course: str, exercise: str, expected: str
) -> None:
    course_file = lone_course(tmp_path, course=course, exercise=exercise)
    load_course(
        course_file
    )  # the text falls back to the default language: the course still loads and grades
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    assert (result.exit_code, result.output.strip().splitlines()) == (2, [f"error: {expected}"])


def test_an_exercise_with_more_languages_than_its_course_loads(tmp_path: Path) -> None:
    loaded = load_course(
        lone_course(tmp_path, exercise=BILINGUAL_EXERCISE)
    )  # the course is English only
    assert loaded.exercises["clone-basics"].exercise.title == "clone basics"


def test_validate_passes_a_complete_bilingual_course(tmp_path: Path) -> None:
    course_file = lone_course(tmp_path, course=BILINGUAL_COURSE, exercise=BILINGUAL_EXERCISE)
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    assert result.exit_code == 0, result.output
    assert "texts in en, zh" in result.output
    assert "beyond 1" in result.output


def test_schema_accepts_a_text_per_language() -> None:
    import json

    schema = json.dumps(json.loads(CliRunner().invoke(main, ["schema"]).output))
    assert '"additionalProperties": {"type": "string"}' in schema


# What learners read for a misconception's name: course.yml's `misconceptions:`, per language.
LABELLED_COURSE = BILINGUAL_COURSE + (
    "misconceptions:\n"
    "  - name: clone-shares\n"
    "    label: {en: thinking clone() shares memory, zh: 以为 clone() 共享内存}\n"
)


def test_a_misconception_s_label_is_read_in_each_language(tmp_path: Path) -> None:
    course_file = lone_course(tmp_path, course=LABELLED_COURSE, exercise=BILINGUAL_EXERCISE)
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    assert result.exit_code == 0, result.output
    loaded = load_course(course_file)
    assert loaded.course.misconception_labels() == {
        "clone-shares": "thinking clone() shares memory"
    }
    zh = loaded.in_language("zh").course.misconception_labels()
    assert zh == {"clone-shares": "以为 clone() 共享内存"}


LABEL_PROBLEMS = [  # (old, new, every problem validate reports)
    pytest.param(
        "  - name: clone-shares\n",
        "  - name: clone-share\n",
        [
            "course.yml:13:1: misconceptions: no label for 'clone-shares' (clone-basics)",
            "course.yml:14:5: misconceptions[0].name: no exercise declares 'clone-share' "
            "(did you mean 'clone-shares'?)",
        ],
        id="a-name-no-exercise-declares",
    ),
    pytest.param(
        "zh: 以为 clone() 共享内存}\n",
        "zh: 以为 clone() 共享内存}\n  - {name: clone-shares, label: again}\n",
        [
            "course.yml:16:26: misconceptions[1].label: no zh text (the course's languages: en, zh)",
            "course.yml:16:6: misconceptions[1].name: duplicate misconception id 'clone-shares'",
        ],
        id="labelled-twice",
    ),
    pytest.param(
        ", zh: 以为 clone() 共享内存}",
        "}",
        ["course.yml:15:5: misconceptions[0].label: no zh text (the course's languages: en, zh)"],
        id="a-label-without-zh",
    ),
]


@pytest.mark.parametrize("old, new, expected", LABEL_PROBLEMS)
def test_validate_reports_a_label_that_names_nothing_is_twice_or_lacks_a_language(
    tmp_path: Path, old: str, new: str, expected: list[str]
) -> None:
    assert old in LABELLED_COURSE
    course = LABELLED_COURSE.replace(old, new, 1)
    course_file = lone_course(tmp_path, course=course, exercise=BILINGUAL_EXERCISE)
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    assert result.exit_code == 2
    lines = [line.removeprefix("error: ") for line in result.output.splitlines()]
    assert sorted(line for line in lines if line.startswith("course.yml")) == expected


# The course's terms per language: a Chinese text that leaves one in English is reported.
GLOSSARY_COURSE = LABELLED_COURSE + (
    "glossary:\n"
    "  - term: {en: leaf, zh: 叶子节点}\n"
    "  - term: {en: non-leaf, zh: 中间节点}\n"
    "  - term: {en: weight decay, zh: 权重衰减}\n"
    "  - term: {en: buffer, zh: 缓冲区}\n"
    "  - term: {en: tensor, zh: tensor}\n"
)


@pytest.mark.parametrize(
    ("zh", "left"),
    [
        pytest.param("clone() 会复制数据。", [], id="clean"),
        pytest.param("带 weight decay 的 SGD 会移动参数。", ["weight decay"], id="a-term-left"),
        pytest.param("b 是 non-leaf，不是 leaf。", ["non-leaf", "leaf"], id="longest-first"),
        pytest.param("两个 buffers 都会变。", ["buffer"], id="plural"),
        pytest.param("`weight_decay=0.1` 与 `leaf` 都在代码里。", [], id="code-is-code"),
        pytest.param('torch 说 "a leaf Variable that requires grad"。', [], id="quoted-message"),
        pytest.param("新的 tensor 在计算图之外。", [], id="a-kept-term"),
    ],
)
def test_validate_reports_a_glossary_term_left_in_english(
    tmp_path: Path, zh: str, left: list[str]
) -> None:
    exercise = BILINGUAL_EXERCISE.replace("zh: clone() 会复制数据。}", f"zh: '{zh}'}}")
    course_file = lone_course(tmp_path, course=GLOSSARY_COURSE, exercise=exercise)
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    lines = [line.removeprefix("error: ") for line in result.output.splitlines()]
    said = {
        "leaf": "叶子节点",
        "non-leaf": "中间节点",
        "weight decay": "权重衰减",
        "buffer": "缓冲区",
    }
    expected = [
        f"exercises/clone-basics.yml:15:34: questions[0].explain.zh: '{term}' left untranslated "
        f"(the glossary says '{said[term]}')"
        for term in left
    ]
    assert ([line for line in lines if "glossary" in line], result.exit_code) == (
        expected,
        2 if left else 0,
    )


def test_validate_reports_a_glossary_term_s_forbidden_rendering(tmp_path: Path) -> None:
    course = (
        GLOSSARY_COURSE + "  - term: {en: in-place, zh: in-place}\n    forbidden: {zh: [就地]}\n"
    )
    exercise = BILINGUAL_EXERCISE.replace(
        "zh: clone() 会复制数据。}", "zh: '`x.add_(1)` 就地修改 x，`就地` 在代码里不算。'}"
    )
    course_file = lone_course(tmp_path, course=course, exercise=exercise)
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    lines = [line.removeprefix("error: ") for line in result.output.splitlines()]
    assert result.exit_code == 2
    assert [line for line in lines if "glossary" in line] == [
        "exercises/clone-basics.yml:15:34: questions[0].explain.zh: '就地' for 'in-place' "
        "(the glossary says 'in-place')"
    ]


@pytest.mark.parametrize(
    ("prompt", "asked"),
    [
        pytest.param("Is b a leaf? What is `b.is_leaf`?", 2, id="two-questions"),
        pytest.param("b 是叶子节点吗？`b.is_leaf` 是什么？", 2, id="full-width-marks"),
        pytest.param("What is `b.is_leaf` (`x?` in code is code)?", 1, id="one-question"),
    ],
)
def test_validate_reports_a_prompt_that_asks_two_questions(
    tmp_path: Path, prompt: str, asked: int
) -> None:
    exercise = BILINGUAL_EXERCISE.replace('en: "b.requires_grad?"', f'en: "{prompt}"')
    course_file = lone_course(tmp_path, course=LABELLED_COURSE, exercise=exercise)
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    lines = [line.removeprefix("error: ") for line in result.output.splitlines()]
    expected = (
        [
            "exercises/clone-basics.yml:19:14: questions[1].prompt.en: asks 2 questions "
            "(question marks outside code): a prompt asks one, so that its key and "
            "misconceptions answer the question the learner read"
        ]
        if asked > 1
        else []
    )
    assert [line for line in lines if "asks" in line] == expected


FENCED_PROMPT = "      en: |\n        ```python\n        b = a.clone()\n        ```\n{line}\n"


@pytest.mark.parametrize(
    ("line", "reported"),
    [
        pytest.param("        Is it `True`?", False, id="flush-with-the-fence"),
        pytest.param("            Is it `True`?", True, id="indented-after-the-fence"),
        pytest.param("\n            Is it `True`?", True, id="indented-after-a-blank-line"),
        pytest.param(
            "        Two lines:\n            is it `True`?", False, id="a-paragraph-goes-on"
        ),
    ],
)
def test_validate_reports_a_prose_line_markdown_shows_as_code(
    tmp_path: Path, line: str, reported: bool
) -> None:
    # After a closing fence (or a blank line) a line indented 4 spaces is an indented code
    # block to CommonMark: the question under a snippet would read as one more line of code.
    exercise = BILINGUAL_EXERCISE.replace(
        '      en: "a.data_ptr() == b.data_ptr()?"\n', FENCED_PROMPT.format(line=line)
    )
    course_file = lone_course(tmp_path, course=LABELLED_COURSE, exercise=exercise)
    result = CliRunner().invoke(main, ["validate", "--no-truth", "--course", str(course_file)])
    lines = [line.removeprefix("error: ") for line in result.output.splitlines()]
    found = [line for line in lines if "shows it as code" in line]
    at = 5 if line.startswith("\n") else 4
    expected = [
        f"exercises/clone-basics.yml:12:7: questions[0].prompt.en: line {at} ('Is it `True`?') "
        "is indented 4 spaces or more after a code block or a blank line, so Markdown shows "
        "it as code; unindent it (code goes in a fenced block)"
    ]
    assert (found, result.exit_code) == ((expected, 2) if reported else ([], 0))
