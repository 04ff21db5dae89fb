"""Template helpers of the rules reference.

    {% load glossary %}
    {{ card.text|glossify:glossary|linebreaksbr }}   escaped text, glossary terms linked
    {% glossary_tips glossary %}                     the definitions the links describe

    {% for group in term.aliases|alias_groups %}    a term's other names, by language

`glossary` is a cards.glossary.Glossary that the view builds once per request (one query).
Each link carries the definition in `data-definition`, shown by CSS on hover and on keyboard
focus, and `aria-describedby` pointing at the same definition in `glossary_tips` (rendered
once per page, hidden, after every `glossify`).
"""

import unicodedata
from dataclasses import dataclass, field

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


# --- other names of a term ------------------------------------------------------------------
# The pages are English: a name written in another script is another language's, shown with its
# language named and marked (lang="ru"), so that readers and screen readers know what it is.

PAGE_SCRIPT = "LATIN"
SCRIPT_LANGUAGES = {  # the first word of a letter's Unicode name -> (code, name in English)
    "CYRILLIC": ("ru", "Russian"),
    "GREEK": ("el", "Greek"),
    "HIRAGANA": ("ja", "Japanese"),
    "KATAKANA": ("ja", "Japanese"),
    "HANGUL": ("ko", "Korean"),
}


def script_of(name: str) -> str:
    """The script a name is written in: that of its first letter outside the page's script
    (the first word of the letter's Unicode name, "CYRILLIC"), else the page's; "" without
    letters."""
    scripts = [unicodedata.name(c, "").split(" ")[0] for c in name if c.isalpha()]
    return next((s for s in scripts if s and s != PAGE_SCRIPT), PAGE_SCRIPT if scripts else "")


def alias_language(name: str) -> tuple[str, str] | None:
    """(code, English name) of the language a name in another script than the page's is in,
    ("ru", "Russian") for Cyrillic; None for a name in the page's script or an unknown one."""
    return SCRIPT_LANGUAGES.get(script_of(name))


@dataclass
class AliasGroup:
    label: str  # "Also called", "Russian"
    lang: str = ""  # the names' language code, for lang=""; "" for the page's language
    names: list[str] = field(default_factory=list)


@register.filter
def alias_groups(aliases) -> list[AliasGroup]:
    """A term's other names grouped by language, the page's first ("Also called"), then each
    other language in the order met, named ("Russian") and with its code for `lang`; names in
    another script whose language is unknown come last ("In another script")."""
    groups: dict[str, AliasGroup] = {}
    unknown = []
    for name in (str(a).strip() for a in aliases or []):
        if not name:
            continue
        language = alias_language(name)
        if language is None and script_of(name) in (PAGE_SCRIPT, ""):
            groups.setdefault("", AliasGroup("Also called")).names.append(name)
        elif language is None:
            unknown.append(name)
        else:
            code, label = language
            groups.setdefault(code, AliasGroup(label, code)).names.append(name)
    ordered = sorted(groups.values(), key=lambda group: group.lang != "")
    if unknown:
        ordered.append(AliasGroup("In another script", names=unknown))
    if ordered and "" not in groups:  # no name in the page's language: say what these are
        first = ordered[0]
        first.label = (
            f"Also called, in {first.label}" if first.lang else "Also called, in another script"
        )
    return ordered
