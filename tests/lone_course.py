"""A course of one exercise (course.yml and clone-basics.yml only), in one language or two."""

from __future__ import annotations

from pathlib import Path

# The bilingual cases use a course of one exercise, whose lines they name.
LONE_COURSE = """\
id: tiny
title: Tiny course
seed: 0
limits: {timeout_s: 10, memory_mib: 2048}
assignments:
  - id: ps1
    title: First
    due: "2026-10-05T23:59:00+02:00"
    late: {penalty_per_day: 0.1, cutoff_days: 3}
    exercises:
      - clone-basics
"""

LONE_EXERCISE = """\
id: clone-basics
title: clone basics
section: "§1a"
kind: predict
setup: |
  import torch
  a = torch.tensor(1.0, requires_grad=True)
  b = a.clone()
questions:
  - id: shares
    prompt: "a.data_ptr() == b.data_ptr()?"
    expr: a.data_ptr() == b.data_ptr()
    points: 1
    explain: clone copies.
  - id: flag
    prompt: "b.requires_grad?"
    expr: b.requires_grad
    points: 1
    explain: clone keeps requires_grad.
"""


def lone_course(root: Path, course: str = LONE_COURSE, exercise: str = LONE_EXERCISE) -> Path:
    """A course of ``course.yml`` and ``clone-basics.yml`` only."""
    (root / "exercises").mkdir(parents=True, exist_ok=True)
    (root / "course.yml").write_text(course)
    (root / "exercises" / "clone-basics.yml").write_text(exercise)
    return root / "course.yml"


# Two languages: course.yml names them; a text is a string (the default language) or a mapping.
BILINGUAL_COURSE = (
    LONE_COURSE.replace("seed: 0\n", "seed: 0\nlanguages: [en, zh]\n")
    .replace("title: Tiny course", "title: {en: Tiny course, zh: 小课程}")
    .replace("    title: First", "    title: {en: First, zh: 第一次}")
)
BILINGUAL_EXERCISE = (
    LONE_EXERCISE.split("questions:\n")[0].replace(
        "title: clone basics", "title: {en: clone basics, zh: clone() 基础}"
    )
    + """\
questions:
  - id: shares
    prompt:
      en: "a.data_ptr() == b.data_ptr()?"
      zh: "a.data_ptr() == b.data_ptr() 的结果是什么？"
    expr: a.data_ptr() == b.data_ptr()
    explain: {en: clone copies., zh: clone() 会复制数据。}
    misconceptions:
      - {answer: "True", name: clone-shares, explain: {en: That is detach()., zh: 那是 detach()。}}
  - id: flag
    prompt: {en: "b.requires_grad?", zh: "b.requires_grad 是什么？"}
    expr: b.requires_grad
    section: beyond
    explain: {en: clone keeps requires_grad., zh: clone() 保留 requires_grad。}
"""
)
