"""Class reports: what a whole class got right and wrong, from results documents.

``aggregate`` and ``misconceptions`` are pure functions over results documents;
``charts`` lays out the SVG charts as numbers; ``render`` fills the Jinja2 templates in
``templates/`` into one self-contained HTML file.
"""
