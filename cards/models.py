"""The reference data of each game: what admins curate and everyone reads.

A game owns its vocabulary (colours with the cost domain that pays for each, rarities,
keywords of which some are factions); cards and leaders use only their own game's words.
"""

import html
import re

from django.contrib.postgres.search import (
    SearchHeadline,
    SearchQuery,
    SearchRank,
    SearchVectorField,
)
from django.core.exceptions import ValidationError
from django.db import connection, models
from django.db.models import Case, Exists, F, FloatField, Func, OuterRef, Q, Value, When
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils.html import strip_tags
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from . import legality


class Game(models.Model):
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    domain_label = models.CharField(
        max_length=40, default="Domain", help_text="What this game calls a cost symbol."
    )
    leader_label = models.CharField(
        max_length=40, default="Leader", help_text="What this game calls its deck leader."
    )
    card_label = models.CharField(max_length=40, default="Card")
    is_sample = models.BooleanField(
        default=False, help_text="The pool is sample data, not the real card list."
    )
    rules_version = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="Bumped whenever the format, cards, leaders or vocabulary change.",
    )
    format = models.JSONField(
        default=list,
        blank=True,
        help_text=(
            "Deck rules, in order: a list such as "
            '[{"rule": "deck_size", "exactly": 10}, {"rule": "colour_identity"}]. '
            "Rules: " + ", ".join(legality.RULES) + "."
        ),
    )

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=~Q(slug=""), name="game_slug_not_empty")]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("card-list", kwargs={"game": self.slug})

    def clean(self):
        errors = legality.validate_format(self.format)
        if errors:
            raise ValidationError({"format": errors})

    def domains(self):
        """{domain slug: Colour} for the colours that a cost domain pays for."""
        return {c.domain: c for c in self.colours.all() if c.domain}

    def rule_urls(self) -> dict[str, str]:
        """{problem code: page and anchor of the rules section it enforces}; see rule_urls."""
        return rule_urls(self.slug, self.format)


def rule_urls(game_slug: str, fmt) -> dict[str, str]:
    """{problem code: page and anchor of the rules section it enforces} for a game's format
    (one query). The format's rules name their sections (legality.sections_by_code); a code
    whose rule names no section, or a section the game does not have, is left out."""
    from . import rules

    wanted = legality.sections_by_code(fmt)
    if not wanted:
        return {}
    anchors = dict(
        RuleSection.objects.filter(
            game__slug=game_slug, number__in=set(wanted.values())
        ).values_list("number", "anchor")
    )
    return {
        code: rules.section_href(game_slug, number, anchors[number])
        for code, number in wanted.items()
        if number in anchors
    }


class Colour(models.Model):
    """A card colour of one game, and the cost domain that gives it (e.g. life -> green)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="colours")
    slug = models.SlugField()
    name = models.CharField(max_length=40)
    symbol = models.CharField(
        max_length=8, help_text="Shown beside the colour, never colour alone."
    )
    css = models.CharField(max_length=20, default="#888888", help_text="CSS colour for badges.")
    domain = models.SlugField(blank=True, help_text="Cost key that pays for this colour.")
    domain_name = models.CharField(max_length=40, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["game", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="colour_unique_slug"),
            models.UniqueConstraint(
                fields=["game", "domain"], condition=~Q(domain=""), name="colour_unique_domain"
            ),
            models.CheckConstraint(condition=~Q(slug=""), name="colour_slug_not_empty"),
        ]

    def __str__(self):
        return f"{self.symbol} {self.name}"


class Rarity(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rarities")
    slug = models.SlugField()
    name = models.CharField(max_length=40)
    symbol = models.CharField(max_length=8, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["game", "position", "slug"]
        verbose_name_plural = "rarities"
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="rarity_unique_slug"),
            models.CheckConstraint(condition=~Q(slug=""), name="rarity_slug_not_empty"),
        ]

    def __str__(self):
        return self.name


class Keyword(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="keywords")
    name = models.CharField(max_length=60)
    slug = models.SlugField(max_length=60)
    is_faction = models.BooleanField(default=False, db_index=True)

    class Meta:
        ordering = ["game", "name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="keyword_unique_slug"),
            models.UniqueConstraint(Lower("name"), "game", name="keyword_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="keyword_name_not_empty"),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.name)
        super().save(*args, **kwargs)


def validate_cost(game: Game, cost) -> dict[str, int]:
    """Check a faith cost against the game's domains; return it normalised."""
    if cost in (None, ""):
        return {}
    if not isinstance(cost, dict):
        raise ValidationError('Cost must be an object such as {"life": 2}.')
    domains = game.domains()
    errors = []
    for domain, amount in cost.items():
        if domain not in domains:
            known = ", ".join(sorted(domains)) or "none"
            errors.append(f"Unknown domain {domain!r} (known: {known}).")
        elif isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            errors.append(f"Cost of {domain!r} must be a whole number of at least 1.")
    if errors:
        raise ValidationError(errors)
    order = list(domains)
    return {d: cost[d] for d in sorted(cost, key=order.index)}


class CardQuerySet(models.QuerySet):
    def for_listing(self):
        """Everything a list shows, in a constant number of queries."""
        return self.select_related("game", "rarity").prefetch_related("colours", "keywords")

    def search(self, text: str):
        """Cards whose name or text has every word of `text` (as a word start on PostgreSQL,
        through the full-text index; anywhere in the text on SQLite, whose pools are small)."""
        words = re.findall(r"\w+", text.lower())
        if not words:
            return self
        if connection.vendor == "postgresql":
            query = " & ".join(f"{word}:*" for word in words)
            return self.filter(search_vector=SearchQuery(query, search_type="raw", config="simple"))
        for word in words:
            self = self.filter(Q(name__icontains=word) | Q(text__icontains=word))
        return self

    def with_any_colour(self, colours, include_colourless=False):
        """Cards having any of `colours` (Colour objects or ids), or no colour at all."""
        ids = [getattr(colour, "pk", colour) for colour in colours]
        condition = Q(
            Exists(Card.colours.through.objects.filter(card=OuterRef("pk"), colour_id__in=ids))
        )
        if include_colourless:
            condition |= Q(colour_count=0)
        return self.filter(condition)

    def with_keyword(self, keyword):
        return self.filter(
            Exists(Card.keywords.through.objects.filter(card=OuterRef("pk"), keyword=keyword))
        )

    def usable_by(self, leader: "Leader"):
        """Cards that `leader` may put in a deck, by the card-versus-leader rules of the format.

        Each such rule of the engine (cards.legality.SUBSET_RULES: "every X of the card is
        among the leader's") becomes one exclusion here; tests prove both sides agree.
        """
        queryset = self.filter(game_id=leader.game_id)
        for rule in leader.game.format:
            check = legality.SUBSET_RULES.get(rule["rule"])
            if check:
                queryset = queryset.exclude(_FOREIGN_TO_LEADER[check.card_attr](leader))
        return queryset


def _foreign_colours(leader: "Leader"):
    foreign = Colour.objects.filter(game_id=leader.game_id).exclude(pk__in=leader.colours.all())
    return Exists(Card.colours.through.objects.filter(card=OuterRef("pk"), colour__in=foreign))


def _foreign_factions(leader: "Leader"):
    foreign = Keyword.objects.filter(game_id=leader.game_id, is_faction=True).exclude(
        pk__in=leader.keywords.all()
    )
    return Exists(Card.keywords.through.objects.filter(card=OuterRef("pk"), keyword__in=foreign))


# The database side of each engine attribute: cards having something the leader lacks.
_FOREIGN_TO_LEADER = {"colours": _foreign_colours, "factions": _foreign_factions}


class Card(models.Model):
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="cards")
    slug = models.SlugField(max_length=120)
    name = models.CharField(max_length=120)
    cost = models.JSONField(default=dict, blank=True, help_text='Per domain, e.g. {"life": 2}.')
    # Derived from `cost` on save and stored, so that lists can filter and sort on them.
    colours = models.ManyToManyField(Colour, blank=True, related_name="cards", editable=False)
    colour_count = models.PositiveSmallIntegerField(default=0, editable=False)
    total_cost = models.PositiveSmallIntegerField(default=0, editable=False, db_index=True)
    rarity = models.ForeignKey(Rarity, on_delete=models.PROTECT, related_name="cards")
    keywords = models.ManyToManyField(Keyword, blank=True, related_name="cards")
    condition = models.TextField(
        blank=True, help_text="Condition for playing: when it can be played."
    )
    text = models.TextField(blank=True, help_text="Effect text.")
    flavour = models.TextField(blank=True)
    effect_source = models.CharField(max_length=40, blank=True)
    makes_attack = models.BooleanField(default=False, db_index=True)
    image = models.URLField(blank=True)
    # PostgreSQL only: name and text as a tsvector, kept by a trigger (migration 0004).
    search_vector = SearchVectorField(null=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = CardQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="card_unique_slug"),
            models.UniqueConstraint(Lower("name"), "game", name="card_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="card_name_not_empty"),
            models.CheckConstraint(condition=~Q(slug=""), name="card_slug_not_empty"),
        ]
        indexes = [
            models.Index(fields=["game", "name"], name="card_game_name"),
            models.Index(fields=["game", "total_cost"], name="card_game_cost"),
            models.Index(fields=["game", "rarity"], name="card_game_rarity"),
            models.Index(fields=["game", "colour_count"], name="card_game_colour_count"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("card-detail", kwargs={"game": self.game.slug, "slug": self.slug})

    @property
    def factions(self):
        return [k for k in self.keywords.all() if k.is_faction]

    @property
    def cost_items(self) -> list[tuple["Colour", int]]:
        """The faith cost as (colour of the domain, amount), in the game's colour order, from
        the prefetched colours (no query in lists built with for_listing())."""
        cost = self.cost or {}
        return [(c, cost[c.domain]) for c in self.colours.all() if c.domain in cost]

    def info(self) -> legality.CardInfo:
        """This card as the rules engine sees it (uses prefetched colours and keywords)."""
        return legality.CardInfo(
            slug=self.slug,
            name=self.name,
            rarity=self.rarity.slug,
            colours=frozenset(c.slug for c in self.colours.all()),
            factions=frozenset(k.name for k in self.factions),
        )

    def clean(self):
        if self.game_id:
            try:
                self.cost = validate_cost(self.game, self.cost)
            except ValidationError as e:
                raise ValidationError({"cost": e.messages}) from None
            if self.rarity_id and self.rarity.game_id != self.game_id:
                raise ValidationError({"rarity": "This rarity belongs to another game."})
        if not self.slug:
            self.slug = slugify(self.name)

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.name)
        self.total_cost = sum((self.cost or {}).values())
        colours = [c for d, c in self.game.domains().items() if d in (self.cost or {})]
        self.colour_count = len(colours)
        super().save(*args, **kwargs)
        self.colours.set(colours)


class Leader(models.Model):
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="leaders")
    slug = models.SlugField(max_length=120)
    name = models.CharField(max_length=120)
    colours = models.ManyToManyField(
        Colour, blank=True, related_name="leaders", help_text="Matching colours."
    )
    keywords = models.ManyToManyField(Keyword, blank=True, related_name="leaders")
    text = models.TextField(blank=True)
    image = models.URLField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="leader_unique_slug"),
            models.UniqueConstraint(Lower("name"), "game", name="leader_unique_name"),
            models.CheckConstraint(condition=~Q(name=""), name="leader_name_not_empty"),
            models.CheckConstraint(condition=~Q(slug=""), name="leader_slug_not_empty"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("leader-detail", kwargs={"game": self.game.slug, "slug": self.slug})

    @property
    def factions(self):
        return [k for k in self.keywords.all() if k.is_faction]

    def info(self) -> legality.LeaderInfo:
        return legality.LeaderInfo(
            slug=self.slug,
            name=self.name,
            colours=frozenset(c.slug for c in self.colours.all()),
            factions=frozenset(k.name for k in self.factions),
        )

    def save(self, *args, **kwargs):
        if not self.slug:
            self.slug = slugify(self.name)
        super().save(*args, **kwargs)


# --- the rules reference: sections, glossary, rulings ---------------------------------------
# Numbers, anchors and rendering live in cards.rules (imported lazily: it imports these models).

SECTION_NUMBER_HELP = "Like 3, 3.1 or 3.1.2 (a letter may end it: 100.1a)."

SEARCH_CONFIG = "english"  # stems: "devotion" finds "Devotion", "waiting" finds "Waiting"
SEARCH_MAX_LENGTH = 200
# Marks around matched words in a PostgreSQL headline; turned into <mark> after escaping.
_MARK_START, _MARK_STOP = "\ue000", "\ue001"
_MARKED = re.compile(f"{_MARK_START}(.*?){_MARK_STOP}", re.S)
SNIPPET_CHARS = 220


# Tags of sanitised HTML (cards.rules) as a snippet drops them: inline ones go without a trace
# ("see <a>4.2</a>)" -> "see 4.2)"), the others leave a space between the words they separate.
# The same patterns serve PostgreSQL (regexp_replace) and Python.
_INLINE_TAG = r"</?(a|abbr|b|code|del|em|i|kbd|s|span|strong|sub|sup|u)(\s[^>]*)?>"
_ANY_TAG = r"<[^>]*>"


def _plain_text(body_html: str) -> str:
    """Sanitised HTML -> plain text, whitespace collapsed (tags removed, entities decoded)."""
    text = re.sub(_ANY_TAG, " ", re.sub(_INLINE_TAG, "", body_html or ""))
    text = html.unescape(strip_tags(text))
    return " ".join(text.replace(_MARK_START, "").replace(_MARK_STOP, "").split())


def _search_words(text: str) -> list[str]:
    return list(dict.fromkeys(w.casefold() for w in re.findall(r"\w+", text or "")))


def highlight(text: str, words) -> SafeString:
    """Escape plain `text` and wrap each occurrence of `words` (any case) in <mark>."""
    words = sorted(set(words), key=len, reverse=True)
    if not words:
        return mark_safe(html.escape(text))
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    out, position = [], 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[position : match.start()]))
        out.append(f"<mark>{html.escape(match.group())}</mark>")
        position = match.end()
    out.append(html.escape(text[position:]))
    return mark_safe("".join(out))


def _window(text: str, words, length: int = SNIPPET_CHARS) -> str:
    """About `length` characters of `text` around the first of `words`, cut at spaces."""
    lowered = text.casefold()
    hits = [i for i in (lowered.find(w) for w in words) if i >= 0]
    start = max(0, min(hits) - length // 3) if hits else 0
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < start + 30 else start
    end = start + length
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    return ("… " if start else "") + text[start:end] + (" …" if end < len(text) else "")


class RuleSectionQuerySet(models.QuerySet):
    def search(self, text: str):
        """Sections matching `text`, best first, each annotated with `rank`.

        PostgreSQL: full-text search of the stored `search_vector` (title weighted A, body B,
        English stemming), ranked by SearchRank, with a SearchHeadline (`headline`) made from
        the plain text of the sanitised body. SQLite: every word in the title or body
        (icontains), ranked by words (and the whole phrase) found in the title first.
        `snippet(section, text)` turns either into safe HTML with only <mark> added.
        """
        words = _search_words(text)
        if not words:
            return self.none()
        if connection.vendor == "postgresql":
            query = SearchQuery(text, search_type="websearch", config=SEARCH_CONFIG)
            text_only = Func(
                F("body_html"),
                Value(_INLINE_TAG),
                Value(""),
                Value("gi"),
                function="regexp_replace",
                output_field=models.TextField(),
            )
            plain = Func(
                text_only,
                Value(_ANY_TAG),
                Value(" "),
                Value("g"),
                function="regexp_replace",
                output_field=models.TextField(),
            )
            return (
                self.filter(search_vector=query)
                .annotate(
                    rank=SearchRank(F("search_vector"), query),
                    headline=SearchHeadline(
                        plain,
                        query,
                        config=SEARCH_CONFIG,
                        start_sel=_MARK_START,
                        stop_sel=_MARK_STOP,
                        max_words=35,
                        min_words=15,
                        max_fragments=2,
                        fragment_delimiter=" … ",
                    ),
                )
                .order_by("-rank", "sort_key")
            )
        condition = Q()
        rank = Case(
            When(title__icontains=" ".join(words), then=Value(2.0)),
            default=Value(0.0),
            output_field=FloatField(),
        )
        for word in words:
            condition &= Q(title__icontains=word) | Q(body__icontains=word)
            rank += Case(
                When(title__icontains=word, then=Value(1.0)),
                default=Value(0.1),
                output_field=FloatField(),
            )
        return self.filter(condition).annotate(rank=rank).order_by("-rank", "sort_key")

    def subtree(self, number: str):
        """Section `number` (normalised) and all its descendants, by sort key: one query."""
        return self.filter(subtree_q(number))

    def tree(self) -> list["RuleSection"]:
        """The sections (one query) as a tree; see `as_tree`."""
        return as_tree(self.order_by("sort_key"))


def subtree_q(number: str) -> Q:
    """Condition for section `number` and its descendants (their sort keys extend its own)."""
    from . import rules

    key = rules.sort_key(number)
    return Q(sort_key=key) | Q(sort_key__startswith=key + ".")


def ancestor_numbers(number: str) -> list[str]:
    """'5.5.1' -> ['5', '5.5']."""
    from . import rules

    ancestors, parent = [], rules.parent_number(number)
    while parent:
        ancestors.insert(0, parent)
        parent = rules.parent_number(parent)
    return ancestors


def as_tree(sections) -> list["RuleSection"]:
    """Sections in rule order as a forest, without queries: each gets `nodes`, its children in
    order, and the roots (sections whose parent is not among them) come back in order."""
    sections = list(sections)
    by_pk = {s.pk: s for s in sections}
    roots = []
    for section in sections:
        section.nodes = []
    for section in sections:
        parent = by_pk.get(section.parent_id)
        (parent.nodes if parent else roots).append(section)
    return roots


def snippet(section: "RuleSection", text: str) -> SafeString:
    """The search snippet of a section found by `RuleSectionQuerySet.search(text)`: plain text
    of the sanitised body, escaped, with the matched words in <mark> (nothing else)."""
    headline = getattr(section, "headline", None)
    if headline is not None:
        # The headline is cut from the tag-stripped body: decode entities, then escape.
        def clean(segment: str) -> str:
            segment = segment.replace(_MARK_START, "").replace(_MARK_STOP, "")
            return html.escape(re.sub(r"\s+", " ", html.unescape(segment)), quote=False)

        parts, position = [], 0
        for match in _MARKED.finditer(headline):
            parts.append(clean(headline[position : match.start()]))
            parts.append(f"<mark>{clean(match[1])}</mark>")
            position = match.end()
        parts.append(clean(headline[position:]))
        return mark_safe("".join(parts).strip())
    words = _search_words(text)
    return highlight(_window(_plain_text(section.body_html), words), words)


class RuleSection(models.Model):
    """One numbered section of a game's rules; its parent is the section of its number minus
    the last part (3.1.2 -> 3.1). The anchor is set once, when the section is created, and
    never changes afterwards, so links to it survive renumbering and re-imports."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rule_sections")
    number = models.CharField(max_length=40, help_text=SECTION_NUMBER_HELP)
    sort_key = models.CharField(max_length=64, editable=False)  # indexed with game, below
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="children",
        editable=False,
    )
    depth = models.PositiveSmallIntegerField(default=1, editable=False)
    anchor = models.SlugField(
        max_length=80, blank=True, help_text="Set once from the number; links depend on it."
    )
    title = models.CharField(max_length=200, blank=True)
    body = models.TextField(blank=True, help_text="Markdown.")
    body_html = models.TextField(blank=True, editable=False)
    # PostgreSQL only: title (weight A) and body (B), kept by a trigger (migration 0006).
    search_vector = SearchVectorField(null=True, editable=False)
    updated = models.DateTimeField(auto_now=True)

    objects = RuleSectionQuerySet.as_manager()

    class Meta:
        ordering = ["game", "sort_key"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="rule_section_unique_number"),
            models.UniqueConstraint(fields=["game", "anchor"], name="rule_section_unique_anchor"),
            models.CheckConstraint(condition=~Q(number=""), name="rule_section_number_not_empty"),
            models.CheckConstraint(condition=~Q(anchor=""), name="rule_section_anchor_not_empty"),
        ]
        indexes = [models.Index(fields=["game", "sort_key"], name="rule_section_game_sort")]

    def __str__(self):
        return f"{self.number} {self.display_title}"

    @property
    def display_title(self) -> str:
        """The title, or else the start of the body (numbered rules often have no title)."""
        from . import rules

        return self.title or rules.excerpt(self.body) or f"Section {self.number}"

    @property
    def top_number(self) -> str:
        from . import rules

        return rules.split_number(self.number)[0]

    def get_absolute_url(self):
        return reverse("rule-section", kwargs={"game": self.game.slug, "number": self.number})

    def permalink(self) -> str:
        """The page of the top-level section, at this section's anchor."""
        from . import rules

        return rules.section_href(self.game.slug, self.number, self.anchor)

    def clean(self):
        from . import rules

        try:
            self.number = rules.normalise_number(self.number)
        except ValueError as e:
            raise ValidationError({"number": str(e)}) from None
        if not self.game_id:
            return
        others = RuleSection.objects.filter(game_id=self.game_id)
        if self.pk:
            others = others.exclude(pk=self.pk)
        parent = rules.parent_number(self.number)
        if parent and not others.filter(number=parent).exists():
            raise ValidationError({"number": f"Add section {parent} first."})
        if self.pk:
            old = RuleSection.objects.filter(pk=self.pk).values_list("number", flat=True).first()
            if old and old != self.number and self.children.exists():
                raise ValidationError(
                    {"number": "Renumber or move its subsections first: they hang under it."}
                )
        if not self.anchor:
            self.anchor = rules.free_anchor(self.game, self.number)
        elif others.filter(anchor=self.anchor).exists():
            raise ValidationError({"anchor": "Another section of this game has this anchor."})

    def save(self, *args, links=None, **kwargs):
        """Derive sort key, depth and parent from the number, set the anchor once, and render
        the body (cross-links from `links`, {number: href}, or else from the database)."""
        from . import rules

        self.sort_key = rules.sort_key(self.number)
        self.depth = len(rules.split_number(self.number))
        parent = rules.parent_number(self.number)
        if parent is None:
            self.parent = None
        elif self.parent_id is None or self.parent.number != parent:
            self.parent = RuleSection.objects.filter(game_id=self.game_id, number=parent).first()
        if not self.anchor:
            self.anchor = rules.free_anchor(self.game, self.number)
        self.body_html = rules.render_markdown(self.body, game=self.game, links=links)
        super().save(*args, **kwargs)


class GlossaryTerm(models.Model):
    """A word of the rules, its other names (English and Russian) and the section defining it."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="glossary_terms")
    term = models.CharField(max_length=120)
    slug = models.SlugField(max_length=120, allow_unicode=True, blank=True)
    aliases = models.JSONField(
        default=list, blank=True, help_text='Other names, e.g. ["Waiting zone", "зона Ожидания"].'
    )
    definition = models.TextField(help_text="Markdown, short.")
    definition_html = models.TextField(blank=True, editable=False)
    section = models.ForeignKey(
        RuleSection,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="glossary_terms",
        help_text="The section that defines the term.",
    )

    class Meta:
        ordering = ["game", "term"]
        constraints = [
            models.UniqueConstraint(fields=["game", "slug"], name="glossary_term_unique_slug"),
            models.UniqueConstraint(Lower("term"), "game", name="glossary_term_unique_term"),
            models.CheckConstraint(condition=~Q(term=""), name="glossary_term_not_empty"),
            models.CheckConstraint(condition=~Q(slug=""), name="glossary_slug_not_empty"),
        ]

    def __str__(self):
        return self.term

    def clean(self):
        if not self.slug:
            self.slug = slugify(self.term, allow_unicode=True)
        aliases = self.aliases if self.aliases is not None else []
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise ValidationError({"aliases": 'A list of names, e.g. ["Waiting zone"].'})
        self.aliases = list(dict.fromkeys(a.strip() for a in aliases if a.strip()))
        if self.section_id and self.game_id and self.section.game_id != self.game_id:
            raise ValidationError({"section": "This section belongs to another game."})

    def save(self, *args, **kwargs):
        from . import rules

        if not self.slug:
            self.slug = slugify(self.term, allow_unicode=True)
        self.definition_html = rules.render_markdown(self.definition, game=self.game)
        super().save(*args, **kwargs)


class Ruling(models.Model):
    """An official answer about one card."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="rulings")
    question = models.TextField()
    answer = models.TextField()
    source = models.CharField(
        max_length=300, blank=True, help_text="Where it comes from: text or URL."
    )
    date = models.DateField()

    class Meta:
        ordering = ["date", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(question=""), name="ruling_question_not_empty"),
        ]

    def __str__(self):
        return f"{self.card}: {self.question[:60]}"
