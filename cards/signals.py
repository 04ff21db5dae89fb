"""Keep derived data current in the same transaction as the change:

- `Game.rules_version` is bumped whenever a row of a model in REGISTRY (everything a page
  shows of a game, the engine reads or a rule_url points to) changes, so what is keyed on it
  (cards.pagecache's pages, cards.catalogue, cards.vocabulary) is read again;
- `Card.colour_count` follows the card's colours, however they are set (from the cost, the API,
  an import or the admin), for the colourless filter and the `shares` colour rule.

The bulk writers (services.save_cards, save_leaders) send no per-row signal: they set
`colour_count` themselves and call `bulk_written` once, which bumps the game and tells
receivers (deck verdicts) which existing cards and leaders changed. Within `one_bump()` (an
import) every bump is held back and each game is bumped once at the end.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction
from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import Signal

from .models import (
    Card,
    CardSet,
    CardType,
    Colour,
    Face,
    Format,
    FormatVersion,
    Game,
    GlossaryTerm,
    Keyword,
    Leader,
    Loyalty,
    Printing,
    Rarity,
    RuleSection,
    Ruling,
    Stat,
)

# The games bumped within one_bump(), or None outside it.
_held: ContextVar[set | None] = ContextVar("rules_version_held", default=None)


def bump(game_id) -> None:
    """Move the rules_version of the game `game_id` (an id, or a one-row queryset of it)."""
    held = _held.get()
    if held is not None:
        held.add(game_id if isinstance(game_id, int) else next(iter(game_id), None))
    else:
        Game.objects.filter(pk=game_id).update(rules_version=F("rules_version") + 1)


@contextmanager
def one_bump():
    """Bump each game changed within once, on the way out, however many rows, relations and
    vocabulary words were written (every bump invalidates every process's catalogue cache).
    Nested, the outermost one bumps. Nothing is bumped when the block raises or its transaction
    is marked for rollback: the changes are undone (and that transaction takes no more queries).
    """
    if _held.get() is not None:
        yield
        return
    held: set = set()
    token = _held.set(held)
    try:
        yield
    finally:
        _held.reset(token)
    if transaction.get_connection().in_atomic_block and transaction.get_rollback():
        return
    for game_id in held - {None}:
        bump(game_id)


# Sent once per bulk write: sender=Game, game_id, cards and leaders (frozensets of the pks of
# the existing rows it changed; new rows are in no deck yet).
bulk_written = Signal()


def written(*, game_id: int, cards=(), leaders=()) -> None:
    """What a bulk writer calls after writing, instead of the per-row signals it does not send."""
    bump(game_id)
    bulk_written.send(
        sender=Game, game_id=game_id, cards=frozenset(cards), leaders=frozenset(leaders)
    )


# Every model whose rows a page of the site shows as reference data (cards, the rules, the
# game's words), with the path from a row to its game: saving or deleting a row bumps that
# game's rules_version, which the pages' keys (cards.pagecache), the engine's catalogue and the
# vocabulary read. tests/cards/test_page_versions.py fails for a model of `cards` or
# `deckbuilder` that is neither here nor in deckbuilder.pages.KEYED or NOT_SHOWN.
REGISTRY = {
    Game: "pk",
    Card: "game_id",
    Leader: "game_id",
    Loyalty: "leader__game_id",
    Keyword: "game_id",
    Colour: "game_id",
    Rarity: "game_id",
    CardType: "game_id",
    Stat: "game_id",
    Format: "game_id",
    FormatVersion: "format__game_id",
    RuleSection: "game_id",
    GlossaryTerm: "game_id",
    Ruling: "card__game_id",
    CardSet: "game_id",
    Printing: "game_id",
    Face: "game_id",
}
# Many-to-many relations of registered models (no row of their own is saved).
RELATIONS = (
    Card.colours.through,
    Card.keywords.through,
    Leader.colours.through,
    Leader.keywords.through,
    Card.more_types.through,
)


def _changed(sender, instance, raw=False, **kwargs):
    if raw:
        return
    path = REGISTRY[sender]
    if "__" not in path:
        bump(getattr(instance, path))
    else:  # a row that names its game through another (a leader's, a card's)
        owner, rest = path.split("__", 1)
        model = sender._meta.get_field(owner).related_model
        owned = model.objects.filter(pk=getattr(instance, f"{owner}_id"))
        bump(owned.values_list(rest, flat=True)[:1])


def _relation_changed(sender, instance, action, **kwargs):
    if action in {"post_add", "post_remove", "post_clear"}:
        bump(instance.game_id)


for model in REGISTRY:
    post_save.connect(_changed, sender=model, dispatch_uid=f"rules-version-save-{model.__name__}")
    if model is not Game:  # a game deleted takes its rows with it: the count of games moves
        post_delete.connect(
            _changed, sender=model, dispatch_uid=f"rules-version-del-{model.__name__}"
        )
for through in RELATIONS:
    m2m_changed.connect(
        _relation_changed, sender=through, dispatch_uid=f"rules-version-{through.__name__}"
    )


def _count_colours(sender, instance, action, reverse, pk_set, **kwargs):
    if action not in {"post_add", "post_remove", "post_clear"}:
        return
    if not reverse:
        cards = Card.objects.filter(pk=instance.pk)
    elif pk_set:
        cards = Card.objects.filter(pk__in=pk_set)
    else:  # a colour cleared from every card: count its game's cards again
        cards = Card.objects.filter(game_id=instance.game_id)
    through = Card.colours.through.objects.filter(card=OuterRef("pk"))
    counted = through.order_by().values("card").annotate(n=Count("pk")).values("n")
    cards.update(colour_count=Coalesce(Subquery(counted), 0))


m2m_changed.connect(_count_colours, sender=Card.colours.through, dispatch_uid="card-colour-count")
