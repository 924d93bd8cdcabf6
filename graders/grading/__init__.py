"""The grading pipeline: truths prepared once, one submission graded, the grading key,
answers files, and a learner's own release."""
