"""``kind: code``: the learner writes a function; a sandbox child runs it; the grader judges.

``kind`` registers the kind (``CodeKind``); ``model`` is the exercise file, ``checkers``
and ``judge`` run the exercise's checker in the sandbox and judge what it observed against
the ``reference``, ``returned`` is the keeper's check of a child's result, ``cells`` and
``starter`` are the notebook side, ``child/`` is what runs in the sandbox child. Importing
this package alone loads nothing else, so that ``cells`` reads a notebook's code cells
without the sandbox, the checker toolkit or the exercise models.
"""
