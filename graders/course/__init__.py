"""The course as loaded: ``load`` reads course.yml and exercises/*.yml into ``loaded``
values, each exercise file by its kind's model, asked through ``kinds`` (what the course
asks of a kind, and the place the kinds layer registers into); frozen models (``model``),
YAML read with node marks (``marks``), texts, parameters and variants. It imports no kind
and no session: checking the whole course is ``graders.validate``."""
