"""``kind: code``: the learner writes a function; a sandbox child runs it; the grader judges.

``kind`` registers the kind (``CodeKind``); ``model`` is the exercise file, ``validation``
what ``graders validate`` reports beyond it; ``checker_file`` loads the exercise's checker
(a file of the course) and ``judge`` runs it in the sandbox and judges what it observed
against the ``reference``; ``returned`` is where the keeper vets a child's result
(``vet_returned``); ``cells`` and ``starter`` are the notebook side, ``child/`` is what
runs in the sandbox child. Importing this package alone loads nothing else, so that
``cells`` reads a notebook's code cells without the sandbox, the checker toolkit or the
exercise models.
"""
