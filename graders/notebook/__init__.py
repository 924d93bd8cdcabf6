"""Notebooks: releasing an assignment as notebooks and collecting answers from them.

The modules are small and ordered by the direction data flows:

- ``cells``   builds nbformat 4 cells and their metadata (pure functions, no I/O);
- ``parts``   turns an assignment into an ordered list of ``kinds.notebook_side.Part``: the
  introduction here, each exercise's parts from its kind (``Kind.layout``);
- ``release`` renders those parts as the student, instructor and nbgrader notebooks;
- ``read``    reads a notebook as plain JSON with a size cap and finds answer cells by
  their ``metadata.graders``, never by position (the tag names the kind);
- ``collect`` turns a submitted notebook into a ``kinds.base.Submission``, each cell
  read by its kind (``Kind.read_cell``), never run;
- ``counted`` which of a question's answer cells counts, when there are several;
- ``runall``  which cells would stop Jupyter's Run All (read, never run);
- ``presubmit`` the learner's pre-submit check (``graders check``, ``graders.check()``):
  which answers cannot be read (``presubmit_report`` writes it for the learner);
- ``submit``  the learner hands the saved notebook in to ``graders serve`` and reads its
  feedback (``service_client`` speaks the API with the standard library, ``tokens`` keeps
  the learner's token, ``submit_report`` writes the feedback for the learner).
"""

#: The key in cell metadata (and notebook metadata) that graders owns.
META_KEY = "graders"
#: Written next to the nbgrader source notebook: where ``graders.nbgrader.check`` finds the course.
POINTER_FILE = "graders-course.json"
#: Between a label's name and its exercise title: "Question 1.2 — clone() of a leaf".
LABEL_SEPARATOR = " — "
