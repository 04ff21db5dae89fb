"""Keep stored deck verdicts true when the reference data they depend on changes.

Curators change cards, leaders, loyalties, keywords and formats in the admin, the API or an
import; every deck that uses what changed is judged again. (`cards` never imports `deckbuilder`: the
dependency points this way.)
"""

from django.db.models import Q
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from cards.models import Card, FormatVersion, Game, Keyword, Leader, Loyalty
from cards.signals import bulk_written

from . import services
from .models import Deck


def _refresh(decks):
    services.refresh_legality(
        decks=decks.select_related("game", "format__game", "leader").distinct()
    )


@receiver(post_save, sender=Game)
def game_saved(sender, instance, created, raw=False, **kwargs):
    if not created and not raw:
        _refresh(Deck.objects.filter(game=instance))


@receiver([post_save, post_delete], sender=FormatVersion)
def format_version_changed(sender, instance, raw=False, **kwargs):
    """Every deck of the game has a verdict under each format's versions (legality per format),
    so each is judged again: a version added, changed or deleted, in force today or later."""
    if not raw:
        _refresh(Deck.objects.filter(game__formats=instance.format_id))


@receiver([post_save, post_delete], sender=Loyalty)
def loyalty_changed(sender, instance, raw=False, **kwargs):
    if not raw:
        _refresh(Deck.objects.filter(leader_id=instance.leader_id))


@receiver(post_save, sender=Card)
def card_saved(sender, instance, created, raw=False, **kwargs):
    if not created and not raw:
        _refresh(Deck.objects.filter(entries__card=instance))


@receiver(post_save, sender=Leader)
def leader_saved(sender, instance, created, raw=False, **kwargs):
    if not created and not raw:
        _refresh(Deck.objects.filter(leader=instance))


@receiver(bulk_written)
def bulk_written_(sender, cards, leaders, **kwargs):
    """Cards and leaders written in bulk (services.save_cards, save_leaders: every API write and
    import), which sends no post_save or m2m_changed."""
    if cards or leaders:
        _refresh(Deck.objects.filter(Q(entries__card__in=cards) | Q(leader__in=leaders)))


@receiver(post_save, sender=Keyword)
def keyword_saved(sender, instance, created, raw=False, **kwargs):
    if not created and not raw:
        _refresh(Deck.objects.filter(entries__card__keywords=instance))


def _relation_changed(deck_lookup):
    def handler(sender, instance, action, reverse, pk_set, **kwargs):
        if action not in {"post_add", "post_remove", "post_clear"}:
            return
        if not reverse:
            _refresh(Deck.objects.filter(**{deck_lookup: instance.pk}))
        elif pk_set:
            _refresh(Deck.objects.filter(**{f"{deck_lookup}__in": pk_set}))
        else:  # a colour or keyword cleared from everything: judge its game again
            _refresh(Deck.objects.filter(game_id=instance.game_id))

    return handler


# Kept at module level: signals hold weak references to their receivers.
_card_relation_changed = _relation_changed("entries__card")
_leader_relation_changed = _relation_changed("leader")
for through, handler in [
    (Card.colours.through, _card_relation_changed),
    (Card.keywords.through, _card_relation_changed),
    (Leader.colours.through, _leader_relation_changed),
    (Leader.keywords.through, _leader_relation_changed),
]:
    m2m_changed.connect(handler, sender=through, dispatch_uid=f"refresh-decks-{through.__name__}")
