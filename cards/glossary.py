"""Glossary terms in card text: links to their definitions, and the rules that concern a card.

`Glossary.for_game(game)` reads the game's terms with their sections (from its cached
vocabulary, cards.vocabulary, when the page attached it; else in one query); a view builds it once
per request and passes it to templates, where the `glossify` filter
(cards.templatetags.glossary) escapes card text and wraps every term or alias it finds (longest
first, whole words, any case) in a link to the section defining it, with the definition shown on
hover and keyboard focus. `rules_for_card` lists the sections a card page points to.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from django.db.models import Q
from django.urls import reverse
from django.utils.html import format_html, strip_tags
from django.utils.safestring import SafeString, mark_safe

from .models import Card, GlossaryTerm, RuleSection, section_href

DEFINITION_CHARS = 300


@dataclass(frozen=True)
class Term:
    slug: str
    term: str
    definition: str  # plain text, for the tooltip
    section: RuleSection | None
    href: str  # the defining section (page and anchor), else the glossary entry
    aliases: tuple[str, ...] = ()

    @property
    def tip_id(self) -> str:
        return f"term-{self.slug}"


def read_terms(game, rows=None) -> list[Term]:
    """The game's glossary terms with their sections (`rows`: the GlossaryTerm rows with their
    sections, else one query reads them)."""
    glossary_url = reverse("rule-glossary", kwargs={"game": game.slug})
    if rows is None:
        rows = GlossaryTerm.objects.filter(game=game).select_related("section")
    terms = []
    for row in rows:
        if row.section is not None:
            row.section.game = game  # URLs read it: no query per term
            href = section_href(game.slug, row.section.number, row.section.anchor)
        else:
            href = f"{glossary_url}#{row.slug}"
        definition = " ".join(html.unescape(strip_tags(row.definition_html)).split())
        if len(definition) > DEFINITION_CHARS:
            definition = definition[: DEFINITION_CHARS - 1].rstrip() + "…"
        aliases = tuple(row.aliases or ())
        terms.append(Term(row.slug, row.term, definition, row.section, href, aliases))
    return terms


@dataclass
class Glossary:
    """A game's glossary, ready to find terms in text (one query to build)."""

    terms: list[Term]
    by_name: dict[str, Term]
    pattern: re.Pattern | None
    used: dict[str, Term] = field(default_factory=dict)  # terms linked so far, for tips

    @classmethod
    def for_game(cls, game) -> Glossary:
        """The game's glossary: from its cached vocabulary when the page attached one (no
        query), else read from the database (one query)."""
        words = getattr(game, "words", None)
        if words is not None:
            return words.glossary()
        return cls.of_terms(read_terms(game))

    @classmethod
    def of_terms(cls, terms: list[Term]) -> Glossary:
        by_name: dict[str, Term] = {}
        for term in terms:
            for name in [term.term, *term.aliases]:
                by_name.setdefault(name.casefold(), term)
        names = sorted(by_name, key=len, reverse=True)  # longest first: "Make an Attack"
        pattern = (
            re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)", re.I)
            if names
            else None
        )
        return cls(terms, by_name, pattern)

    def fresh(self) -> Glossary:
        """The same terms with nothing linked yet (one per page: `link` records what it used)."""
        return Glossary(self.terms, self.by_name, self.pattern)

    def lookup(self, name: str) -> Term | None:
        return self.by_name.get((name or "").strip().casefold())

    def defining(self, text: str) -> Term | None:
        """The term `text` names (its term or an alias, any case, spaces collapsed), if a section
        defines it: what a rules search adds to what its words find."""
        term = self.lookup(" ".join((text or "").split()))
        return term if term is not None and term.section is not None else None

    def find(self, text: str) -> list[Term]:
        """The terms named in `text`, in order of first appearance, each once."""
        if not self.pattern or not text:
            return []
        found = {}
        for match in self.pattern.finditer(text):
            term = self.by_name[match.group().casefold()]
            found.setdefault(term.slug, term)
        return list(found.values())

    def link(self, text: str) -> SafeString:
        """Escaped `text` with the first mention of each term linked to its definition."""
        if not text:
            return mark_safe("")
        if not self.pattern:
            return mark_safe(html.escape(text, quote=False))
        out, position, linked = [], 0, set()
        for match in self.pattern.finditer(text):
            term = self.by_name[match.group().casefold()]
            if term.slug in linked:
                continue
            linked.add(term.slug)
            self.used.setdefault(term.slug, term)
            out.append(html.escape(text[position : match.start()], quote=False))
            out.append(
                format_html(
                    '<a class="term" href="{}" data-definition="{}" aria-describedby="{}">{}</a>',
                    term.href,
                    term.definition,
                    term.tip_id,
                    match.group(),
                )
            )
            position = match.end()
        out.append(html.escape(text[position:], quote=False))
        return mark_safe("".join(out))


@dataclass
class Concern:
    """A section that concerns a card, and why."""

    section: RuleSection
    href: str
    reasons: list[str] = field(default_factory=list)


def rules_for_card(card: Card, glossary: Glossary) -> list[Concern]:
    """The sections a card's page points to, in rule order (one query): those defining the
    glossary terms of its condition and text; those on attacks, effect sources and conditions
    for playing when the card makes an attack, has an effect source or a condition; and those
    whose title or body names the card."""
    concerns: dict[int, Concern] = {}
    game = card.game

    def add(section: RuleSection | None, reason: str):
        if section is None:
            return
        concern = concerns.get(section.pk)
        if concern is None:
            href = section_href(game.slug, section.number, section.anchor)
            concern = concerns[section.pk] = Concern(section, href)
        if reason not in concern.reasons:
            concern.reasons.append(reason)

    for term in glossary.find(f"{card.condition}\n{card.text}"):
        add(term.section, f"defines “{term.term}”")
    # The card's own fields, by the names the card page gives them.
    fields = [
        (card.makes_attack, "Attack", "it makes an Attack"),
        (card.effect_source, card.effect_source, "its effect source"),
        (card.effect_source, "Effect source", "its effect source"),
        (card.condition, "Condition for playing", "its condition for playing"),
    ]
    for present, name, reason in fields:
        term = glossary.lookup(name) if present else None
        if term is not None:
            add(term.section, reason)
    name = re.compile(rf"(?<!\w){re.escape(card.name)}(?!\w)", re.I)
    mentions = RuleSection.objects.live().filter(
        Q(title__icontains=card.name) | Q(body__icontains=card.name), game=game
    )
    for section in mentions.only("game", "number", "anchor", "title", "body", "sort_key"):
        section.game = game
        if name.search(section.title) or name.search(section.body):
            add(section, f"names {card.name}")
    return sorted(concerns.values(), key=lambda c: c.section.sort_key)
