"""The grading pipeline: truths prepared once (``prepare``, kept in ``truth_cache``, by the
torch ``torch_side`` names), one submission graded, the grading key, answers files, and a
learner's own release."""
