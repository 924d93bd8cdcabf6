"""graders' HTML template environment: the one Jinja2 setup of every page graders writes.

The class report (``render``), the feedback pages (``feedback``) and the service's pages
(``service.pages``, with its own templates first and its own globals) are rendered by an
environment made here: HTML-escaped, undefined names an error, the page's own words in the
language spoken now (``i18n.speaking``), and the filters and tests the templates share::

    number        a count or a statistic, to 2 decimals: 7, 7.5, 6.33 (``charts.number``)
    points        points as the results document rounds them, to 4: 0.3333
                  (``results.format_points``)
    prose         an author's text (Markdown) or a part of what graders says, as HTML
    section_label, read_as, is in_article    an article section, as the course names it
    when          a time, as the course's zone writes it
"""

from __future__ import annotations

from jinja2 import BaseLoader, Environment, PackageLoader, StrictUndefined, pass_context
from jinja2.runtime import Context

from ..course.model import in_article, read_as, section_label
from ..course.times import time_text
from ..i18n import _, ngettext, punctuated
from ..results import format_points
from .author_text import prose
from .charts import number


def html_environment(loader: BaseLoader | None = None) -> Environment:
    """A new environment of graders' pages over ``loader`` (the report templates when None)."""
    env = Environment(
        loader=loader or PackageLoader("graders.reports", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    # The page's own words, in the language the command speaks (``i18n.speaking``).
    env.install_gettext_callables(gettext=_, ngettext=ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.filters.update(
        number=number,
        points=format_points,
        prose=prose,
        section_label=section_label,
        read_as=read_as,
        when=time_text,
        punctuated=_punctuated,
    )
    env.tests["in_article"] = in_article
    return env


@pass_context
def _punctuated(context: Context, mark: str) -> str:
    """``"; " | punctuated``: the mark between two parts of a line, as the language spoken
    while the page is rendered writes it. It takes the context only so that Jinja does not
    fold it into the template when it is compiled, in whatever language was spoken then."""
    return punctuated(mark)
