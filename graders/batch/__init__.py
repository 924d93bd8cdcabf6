"""Grading a class: finding submissions, the grading pipeline, the gradebook and exports.

``submissions`` finds each student's notebook; ``grading`` prepares an assignment once
and grades each submission; ``autograde`` runs the batch into the ``gradebook``;
``exports`` writes grades.csv, JUnit and Gradescope files from the results document.
"""
