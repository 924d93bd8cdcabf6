"""Exercise kinds: the contract (``base``), the registry, and the built-in kinds.

``base`` says what every kind answers for; ``registry`` finds a kind by its YAML
``kind`` or by the tag of an answer cell; ``layout`` is what kinds share to lay out and
read back notebook cells; ``cache`` and ``prepare`` compute each exercise's state once.
``predict/`` and ``code/`` are the kinds.
Importing this package registers every built-in kind.
"""

from importlib import import_module

# The built-in kinds, in the spirit of pytest's default_plugins: one module per YAML `kind`.
BUILTIN_KINDS = ("predict", "code")

for _name in BUILTIN_KINDS:
    import_module(f"{__name__}.{_name}")
