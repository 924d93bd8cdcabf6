"""A class's handed-in work: each learner's notebook found in a folder or an archive,
which one counts, and when it came in."""
