"""Keep derived data current in the same transaction as the change:

- `Game.rules_version` is bumped whenever something the rules engine reads (or a rule_url
  points to) changes, so caches keyed on it (cards.catalogue) see it;
- `Card.colour_count` follows the card's colours, however they are set (from the cost, the API,
  an import or the admin), for the colourless filter and the `shares` colour rule.
"""

from django.db.models import Count, F, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.db.models.signals import m2m_changed, post_delete, post_save

from .models import (
    Card,
    CardType,
    Colour,
    Format,
    Game,
    Keyword,
    Leader,
    Loyalty,
    Rarity,
    RuleSection,
    Stat,
)


def bump(game_id) -> None:
    Game.objects.filter(pk=game_id).update(rules_version=F("rules_version") + 1)


def _changed(sender, instance, raw=False, **kwargs):
    if raw:
        return
    if isinstance(instance, Game):
        bump(instance.pk)
    elif isinstance(instance, Loyalty):
        bump(Leader.objects.filter(pk=instance.leader_id).values("game_id")[:1])
    else:
        bump(instance.game_id)


def _relation_changed(sender, instance, action, **kwargs):
    if action in {"post_add", "post_remove", "post_clear"}:
        bump(instance.game_id)


VOCABULARY = (Card, Leader, Loyalty, Keyword, Colour, Rarity, CardType, Stat, Format, RuleSection)
for model in (Game, *VOCABULARY):
    post_save.connect(_changed, sender=model, dispatch_uid=f"rules-version-save-{model.__name__}")
for model in VOCABULARY:  # rule sections: rule_url
    post_delete.connect(_changed, sender=model, dispatch_uid=f"rules-version-del-{model.__name__}")
for through in (
    Card.colours.through,
    Card.keywords.through,
    Leader.colours.through,
    Leader.keywords.through,
):
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
