"""Template helpers of the rules reference.

    {% load glossary %}
    {{ card.text|glossify:glossary|linebreaksbr }}   escaped text, glossary terms linked
    {% glossary_tips glossary %}                     the definitions the links describe

`glossary` is a cards.glossary.Glossary that the view builds once per request (one query).
Each link carries the definition in `data-definition`, shown by CSS on hover and on keyboard
focus, and `aria-describedby` pointing at the same definition in `glossary_tips` (rendered
once per page, hidden, after every `glossify`).
"""

from django import template
from django.utils.html import escape, format_html_join
from django.utils.safestring import mark_safe

register = template.Library()


@register.filter
def glossify(text, glossary):
    """Escape `text` and link the glossary terms in it; plain escaping without a glossary."""
    if glossary is None or not hasattr(glossary, "link"):
        return escape(text or "")
    return glossary.link(str(text or ""))


@register.simple_tag
def glossary_tips(glossary):
    """The definitions of the terms linked so far on the page, for aria-describedby."""
    used = getattr(glossary, "used", None)
    if not used:
        return ""
    items = format_html_join(
        "",
        '<p id="{}"><b>{}</b>: {}</p>',
        ((t.tip_id, t.term, t.definition) for t in used.values()),
    )
    return mark_safe(f'<div class="term-tips" hidden>{items}</div>')
