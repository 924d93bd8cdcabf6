"""What runs in a prediction exercise's sandbox child: ``task`` runs the exercise's setup
and questions in torch and describes each outcome as plain JSON (the truths). It imports
only the standard library, torch and graders' literal grammar (``answers``), never what
grades (``tests/test_import_rules.py``).
"""
