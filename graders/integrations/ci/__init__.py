"""Grading one notebook where it is handed in: a CI job, pytest, or Gradescope.

- ``notebook``   grades one notebook with autograde's engine into a results document;
- ``report``     what a CI log, a job summary and a pytest failure say about it;
- ``bundle``     copies the part of a course one assignment needs (for a student
  repository or an autograder), without the rest of the course;
- ``templates``  renders ``integrations/ci/templates`` (the workflows and the Gradescope scripts);
- ``wheel``      builds the wheel of this graders that repositories install it from;
- ``github``     writes a student repository's workflow, and the course repository's that
  grades the students' repositories;
- ``gradescope`` builds a Gradescope autograder zip;
- ``learner``    who is graded, from what the platform records (``--student-from``):
  Gradescope's submitter, GitHub's actor; it decides the learner's variants.

The pytest plugin (``graders.integrations.pytest_plugin``) and ``graders ci`` both grade through
``notebook.grade_notebook``.
"""
