"""The gradebook's Alembic migrations: ``env.py`` and one revision per change of its tables.

``graders db upgrade`` runs them (``gradebook.revisions``); nothing here is imported otherwise.
A change to a table of ``gradebook.tables`` comes with a revision in ``versions/``, written
by hand like ``0001``: a test builds a database from the revisions and compares it with
the tables.
"""
