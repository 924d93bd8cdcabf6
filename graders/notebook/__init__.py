"""Notebooks: releasing an assignment as notebooks and collecting answers from them.

The modules are small and ordered by the direction data flows:

- ``cells``   builds nbformat 4 cells and their metadata (pure functions, no I/O);
- ``layout``  turns an assignment into an ordered list of ``Part`` (intro, exercise
  header, setup, prompt, answer, code), the same for every kind of notebook;
- ``release`` renders those parts as the student, instructor and nbgrader notebooks;
- ``read``    reads a notebook as plain JSON with a size cap and finds answer cells by
  their ``metadata.graders``, never by position;
- ``answer``  takes the prediction out of an ``answer = ...`` cell as text, never running it;
- ``collect`` turns a submitted notebook into a ``graders.grade.Submission``.
"""

#: The key in cell metadata (and notebook metadata) that graders owns.
META_KEY = "graders"
#: Written next to the nbgrader source notebook: where ``graders.nbgrader.check`` finds the course.
POINTER_FILE = "graders-course.json"
