"""Bump `Game.rules_version` whenever something the rules engine reads (or a rule_url points
to) changes, in the same transaction as the change, so caches keyed on it (cards.catalogue)
see it."""

from django.db.models import F
from django.db.models.signals import m2m_changed, post_delete, post_save

from .models import Card, Colour, Game, Keyword, Leader, Rarity, RuleSection


def bump(game_id) -> None:
    Game.objects.filter(pk=game_id).update(rules_version=F("rules_version") + 1)


def _changed(sender, instance, raw=False, **kwargs):
    if not raw:
        bump(instance.pk if isinstance(instance, Game) else instance.game_id)


def _relation_changed(sender, instance, action, **kwargs):
    if action in {"post_add", "post_remove", "post_clear"}:
        bump(instance.game_id)


for model in (Game, Card, Leader, Keyword, Colour, Rarity, RuleSection):
    post_save.connect(_changed, sender=model, dispatch_uid=f"rules-version-save-{model.__name__}")
for model in (Card, Leader, Keyword, Colour, Rarity, RuleSection):  # sections: rule_url
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
