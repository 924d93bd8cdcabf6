"""Files made for other tools from results, every one a format of one registry.

formats       the registry: every output's name, options and writer (results.json,
              grades.csv, JUnit, Gradescope, each LMS's import, a plain CSV)
results_files the outputs folder autograde writes, and the writers of results.json,
              grades.csv and Gradescope's results
junit         JUnit XML
gradescope_results  one learner's Gradescope result
lms           each LMS's import file (what it holds is ``lms/``'s), the plain CSV, and
              an export's account of who it left out
from_gradebook  ``graders export``: one format of an assignment, from the gradebook
csv_writer    the one CSV writer, and its formula guard
"""
