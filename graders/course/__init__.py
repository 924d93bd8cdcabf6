"""The course as data: frozen models (``model``), YAML read with node marks (``marks``),
texts, parameters and variants. It imports no kind and no session: reading its files by
kind is ``kinds.load``, checking the whole course ``graders.validate``."""
