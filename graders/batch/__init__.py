"""Grading a class: orchestration only, over ``submissions``, ``grading``, ``gradebook``
and ``exports``.

``plan`` finds who to grade now; ``executor`` grades them (threads here, or a Dask
cluster: ``cluster``, ``cluster_run`` on the batch's side, ``cluster_worker`` on the
worker's); ``autograde`` runs the batch into the gradebook and writes its outputs;
``regrade`` grades one student again after an instructor's decision; ``progress`` and
``run_summary`` say what a batch is doing and what it did.
"""
