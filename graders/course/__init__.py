"""The course as data: frozen models (``model``), YAML read with node marks (``marks``),
loading and validating every file (``load``, ``validate``) and the exercise schema."""
