"""What a learner's feedback page shows of their own variant: setups, titles and prompts.

For an assignment whose exercises have parameters, each learner was asked their own
variant. Their page shows that variant's setup (as their notebook ran it), titles and
prompts, rendered again from the course for the learner id the page is for: the same
derivation grading used, never anything the learner handed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..course.variants import learner_course
from ..kinds.notebook_side import Placed
from ..kinds.registry import kind_of

if TYPE_CHECKING:
    from ..course.loaded import LoadedCourse


def learner_context(loaded: LoadedCourse, assignment: str, student: str) -> dict[str, Any]:
    """Template context for ``student``'s page (empty mappings when nothing of
    ``assignment`` varies: the page then shows the course's own texts)."""
    found = loaded.course.assignment(assignment)
    varied = [i.id for i in found.exercises if loaded.exercises[i.id].variants] if found else []
    setups: dict[str, str] = {}
    titles: dict[str, str] = {}
    prompts: dict[str, str] = {}
    if not varied:
        return {"setups": setups, "learner_titles": titles, "learner_prompts": prompts}
    mine = learner_course(loaded, student)
    for number, exercise_id in enumerate(varied, start=1):
        ex = mine.exercises[exercise_id]
        parts = kind_of(ex).layout(Placed(number, ex, 1.0, loaded.course.seed), {})
        setups[exercise_id] = "\n".join(p.text for p in parts if p.role == "setup")
        titles[exercise_id] = ex.exercise.title
        prompts.update({item.id: item.prompt for item in ex.kind.items(ex.exercise)})
    return {"setups": setups, "learner_titles": titles, "learner_prompts": prompts}
