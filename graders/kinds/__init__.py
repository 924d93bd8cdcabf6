"""Exercise kinds. Importing this package registers every built-in kind."""

from importlib import import_module

# The built-in kinds, in the spirit of pytest's default_plugins: one module per YAML `kind`.
BUILTIN_KINDS = ("predict", "code")

for _name in BUILTIN_KINDS:
    import_module(f"{__name__}.{_name}")
