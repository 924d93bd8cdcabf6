"""What runs in a code exercise's sandbox child, beside the learner's code.

``task`` is the job: compile the learner's source through the allowlist (``learner``,
``allowlist``), give it a guarded namespace (``namespace``, ``imports``), call its function
through the course's checker, and hand back plain JSON. ``audit`` watches what the
interpreter does on the code's behalf; ``guard`` and ``snapshot`` notice what it changed of
torch, builtins and graders' modules, and put it back. Nothing
here decides a grade: the keeper checks what comes back (``code/returned.py``) and the
grader judges it (``code/judge.py``). Modules here import only each other, the standard
library, torch and the checker toolkit (``tests/test_import_rules.py``).
"""
