"""graders inside other tools: CI jobs and Gradescope (``ci``), nbgrader's test cells
(``nbgrader``) and pytest (``pytest_plugin``). Each opens a course with ``session``."""
