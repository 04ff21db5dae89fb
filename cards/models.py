"""The reference data of each game: what admins curate and everyone reads.

A game owns its vocabulary (colours with the cost domain that pays for each, rarities,
keywords of which some are factions); cards and leaders use only their own game's words.
"""

import re

from django.contrib.postgres.search import SearchQuery, SearchVectorField
from django.core.exceptions import ValidationError
from django.db import connection, models
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Lower
from django.urls import reverse
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
    updated = models.DateTimeField(auto_now=True)

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
