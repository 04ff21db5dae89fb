"""The decks people build: a leader, card counts, and the verdict of the rules engine."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, OuterRef, Q, Subquery
from django.urls import reverse
from django.utils import timezone

from cards.models import (
    Card,
    DressedQuerySet,
    Format,
    FormatVersion,
    Game,
    Leader,
    held,
    in_force,
    let_go,
)
from cards.text import one_line, several_lines


def new_share_id() -> str:
    """16 URL-safe characters: 96 random bits, unguessable."""
    return secrets.token_urlsafe(12)


class Visibility(models.TextChoices):
    PRIVATE = "private", "Private — only me"
    UNLISTED = "unlisted", "Unlisted — anyone with the link"
    PUBLIC = "public", "Public — listed for everyone"


class DeckQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Decks `user` may open: their own, and anyone's unlisted or public ones."""
        shared = ~Q(visibility=Visibility.PRIVATE)
        if user.is_authenticated:
            return self.filter(shared | Q(owner=user))
        return self.filter(shared)

    def public(self):
        return self.filter(visibility=Visibility.PUBLIC)

    def for_display(self):
        return self.select_related("owner", "game", "format", "leader").prefetch_related("verdicts")

    def legal_in(self, fmt: Format | int, day=None, *, legal: bool = True):
        """Decks whose verdict under the version of `fmt` in force on `day` (today when None)
        is `legal` (any deck of another game has none: not legal, nor illegal)."""
        now = DeckVerdict.objects.filter(deck=OuterRef("pk"), format=fmt).in_force(day)
        return self.alias(legal_then=Subquery(now.values("legal")[:1])).filter(legal_then=legal)

    def legal_now(self, legal: bool = True, day=None):
        """Decks legal (or not) in their own format under the version in force on `day`."""
        now = DeckVerdict.objects.filter(deck=OuterRef("pk"), format=OuterRef("format"))
        verdict = Subquery(now.in_force(day).values("legal")[:1])
        return self.alias(legal_then=verdict).filter(legal_then=legal)


class Deck(models.Model):
    share_id = models.CharField(max_length=22, unique=True, default=new_share_id, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="decks"
    )
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="decks")
    # One of the game's formats (the services keep format.game == game).
    format = models.ForeignKey(Format, on_delete=models.PROTECT, related_name="decks")
    leader = models.ForeignKey(
        Leader, on_delete=models.PROTECT, null=True, blank=True, related_name="decks"
    )
    name = models.CharField(max_length=120, validators=[one_line])
    description = models.TextField(blank=True, max_length=5000, validators=[several_lines])
    visibility = models.CharField(
        max_length=10, choices=Visibility.choices, default=Visibility.PRIVATE, db_index=True
    )
    # The engine's verdicts are DeckVerdicts, one per version of each format of the game.
    card_count = models.PositiveSmallIntegerField(default=0)
    version = models.PositiveIntegerField(default=1, help_text="Bumped on every change (ETag).")
    # Moderation: staff took the deck out of the public lists (it stays unlisted) and said why;
    # the owner reads the reason on the deck page and cannot list it again until staff restore.
    unpublished_reason = models.TextField(blank=True, max_length=1000, validators=[several_lines])
    unpublished_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    unpublished_at = models.DateTimeField(null=True, blank=True)
    # The deck this one was copied from, and how many players copied this one (not its owner).
    copied_from = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="copied_to"
    )
    copies = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = DeckQuerySet.as_manager()

    class Meta:
        ordering = ["-updated"]
        constraints = [
            models.CheckConstraint(
                condition=Q(visibility__in=Visibility.values), name="deck_visibility_known"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="deck_name_not_empty"),
            models.CheckConstraint(
                condition=Q(unpublished_at__isnull=True)
                | ~Q(visibility=Visibility.PUBLIC) & ~Q(unpublished_reason=""),
                name="deck_unpublished_is_not_public_and_says_why",
            ),
        ]
        indexes = [
            models.Index(fields=["owner", "-updated"], name="deck_owner_updated"),
            models.Index(fields=["visibility", "game", "-updated"], name="deck_listing"),
            models.Index(fields=["leader", "visibility"], name="deck_leader_visibility"),
            models.Index(fields=["visibility", "-copies", "-updated"], name="deck_most_copied"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("deck-detail", kwargs={"share_id": self.share_id})

    entry_list = held("entries")
    verdict_list = held("verdicts")

    def refresh_from_db(self, *args, **kwargs):
        let_go(self, "entries", "verdicts")  # what it was handed is read again too
        super().refresh_from_db(*args, **kwargs)

    @property
    def etag(self) -> str:
        return f'"{self.share_id}-{self.version}"'

    def verdict(self, fmt_id: int | None = None, day=None) -> "DeckVerdict | None":
        """The stored verdict under the version of the format `fmt_id` (the deck's own when
        None) in force on `day` (today in the site's time zone when None)."""
        return in_force(
            [v for v in self.verdict_list if v.format_id == (fmt_id or self.format_id)], day
        )

    @property
    def legal(self) -> bool:
        """Legal in its own format under the version in force now."""
        found = self.verdict()
        return bool(found and found.legal)

    @property
    def problems(self) -> list[dict]:
        found = self.verdict()
        return found.problems if found else []

    @property
    def illegal_since(self):
        """The start of the version in force that made the deck illegal, when one did (a
        version with no start, or a deck never legal under any stored version: None)."""
        found = self.verdict()
        if found is None or found.legal or found.starts is None:
            return None
        before = [v for v in self.verdict_list if v.format_id == self.format_id]
        was_legal = any(v.legal for v in before if v.starts is None or v.starts < found.starts)
        return found.starts if was_legal else None


class DeckVerdictQuerySet(models.QuerySet):
    def in_force(self, day=None):
        """Per deck and format, the verdict of the version in force on `day` (today when
        None) comes first: use with `[:1]` in a subquery on one deck and format."""
        day = day or timezone.localdate()
        return self.filter(Q(starts__lte=day) | Q(starts__isnull=True)).order_by(
            F("starts").desc(nulls_last=True)
        )


class DeckVerdict(models.Model):
    """The engine's verdict on a deck under one version of one format of its game (the deck's
    own format and every other), stored so that lists show and filter legality without judging
    every deck. Written for every version in force now or later whenever the deck, the cards
    it names or the format change; so when a version's day comes its verdicts are there, and
    what is shown is always the verdict of the version in force at that moment."""

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="verdicts")
    format = models.ForeignKey(Format, on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(FormatVersion, on_delete=models.CASCADE, related_name="+")
    # The version's start (None: from the beginning), copied so that picking the verdict in
    # force is one filter on this table.
    starts = models.DateField(null=True, blank=True)
    legal = models.BooleanField(default=False)
    problems = models.JSONField(default=list, blank=True)

    objects = DeckVerdictQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["deck", "version"], name="deckverdict_one_a_version")
        ]
        indexes = [
            models.Index(fields=["deck", "format", "starts"], name="deckverdict_in_force"),
            models.Index(fields=["format", "starts", "legal"], name="deckverdict_format_legal"),
        ]

    def __str__(self):
        return f"{self.deck_id} under {self.version_id}: {'legal' if self.legal else 'not legal'}"


class DeckCardQuerySet(DressedQuerySet):
    def with_cards(self, words):
        """The entries with their cards, each card dressed from `words`, its game's Vocabulary
        (colours, keywords, rarity, type, loyalty faction): one query, whatever the deck's size."""
        return self.select_related("card").dressed(words, "card")


class DeckCard(models.Model):
    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="entries")
    card = models.ForeignKey(Card, on_delete=models.PROTECT, related_name="deck_entries")
    section = models.SlugField(max_length=40, default="main", help_text="A section of the format.")
    count = models.PositiveSmallIntegerField()
    # The printing the player named (a number of the card's, as stored when named): the art
    # shown and exported. The rules ignore it; no foreign key, so a printing renumbered or
    # removed later leaves the entry as it is.
    printing = models.CharField(
        max_length=30, blank=True, default="", help_text="A printing number of the card: its art."
    )

    objects = DeckCardQuerySet.as_manager()

    class Meta:
        ordering = ["card__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["deck", "section", "card"], name="deckcard_one_row_per_card_and_section"
            ),
            models.CheckConstraint(condition=~Q(section=""), name="deckcard_section_not_empty"),
            models.CheckConstraint(
                condition=Q(count__gte=1) & Q(count__lte=99), name="deckcard_count_1_to_99"
            ),
        ]

    def __str__(self):
        return f"{self.count} {self.card}"


class DeckVersion(models.Model):
    """A deck as one saved change, or a burst of rapid ones, left it: its history, for the
    history page, its diffs and restoring. `number` is the deck's `version` (the ETag's number)
    after the save that made the version; changes within a minute of it update it in place
    (its contents and `created`, the time of the latest: deckbuilder.services._record), so
    numbers skip those, and the changes that are not versions (staff moderation, a verdict
    refreshed, a description or visibility change).

    `contents` stands alone: card names are stored beside slugs, so a diff still reads well
    after a card is renamed or deleted. One entry a card and section, in the format's section
    order then by name: {"card": slug, "name": name, "section": slug, "count": n}, plus
    "printing": number for an entry that names one."""

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    created = models.DateTimeField(default=timezone.now)
    name = models.CharField(max_length=120)
    format = models.ForeignKey(Format, on_delete=models.PROTECT, related_name="+")
    leader = models.ForeignKey(
        Leader, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    contents = models.JSONField(default=list, blank=True)
    card_count = models.PositiveSmallIntegerField(default=0)
    legal = models.BooleanField(default=False)

    class Meta:
        ordering = ["deck", "-number"]
        get_latest_by = "number"
        constraints = [
            models.UniqueConstraint(fields=["deck", "number"], name="deckversion_one_per_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="deckversion_number_from_1"),
            models.CheckConstraint(condition=~Q(name=""), name="deckversion_name_not_empty"),
        ]

    def __str__(self):
        return f"{self.deck_id} v{self.number}"
