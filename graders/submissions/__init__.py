"""A class's handed-in work: each learner's notebook found in a folder or an archive,
which one counts, and when it came in; and one learner's notebook as grading takes it,
wherever it came from (``handed_in``: a file or its bytes, under the name they know)."""
