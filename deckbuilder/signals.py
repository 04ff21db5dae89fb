"""Keep stored deck verdicts true when the reference data they depend on changes.

Curators change cards, leaders, loyalties, keywords and formats in the admin, the API or an
import; every deck that uses what changed is judged again. (`cards` never imports `deckbuilder`: the
dependency points this way.)
"""

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from cards import pagecache
from cards.models import Card, Format, Game, Keyword, Leader, Loyalty
from cards.signals import bulk_written

from . import services
from .models import Deck, Visibility


def _refresh(decks):
    services.refresh_legality(
        decks=decks.select_related("game", "format__game", "leader").distinct()
    )


@receiver(post_save, sender=Game)
def game_saved(sender, instance, created, raw=False, **kwargs):
    if not created and not raw:
        _refresh(Deck.objects.filter(game=instance))


@receiver(post_save, sender=Format)
def format_saved(sender, instance, created, raw=False, **kwargs):
    if not created and not raw:
        _refresh(Deck.objects.filter(format=instance))


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


# Anonymous pages cached whole (cards.pagecache) list public decks (public decks, a card's
# decks) with their owners' names: a deck that is or was public, written, renders them again.
# A deck's own page moves with the deck's own generation: an unlisted deck written renders
# only its page again; a deck private when read and written is on no anonymous page. A copy
# counts on the original (services.deck_copy moves it).
@receiver([post_save, post_delete], sender=Deck)
def deck_written(sender, instance, raw=False, **kwargs):
    was = getattr(instance, "stored_visibility", None)
    if raw or instance.visibility == was == Visibility.PRIVATE:
        return
    pagecache.changed(pagecache.deck(instance.share_id))
    if Visibility.PUBLIC in (instance.visibility, was):
        pagecache.changed(pagecache.DECKS)


@receiver(post_save, sender=get_user_model())
def user_saved(sender, update_fields=None, raw=False, **kwargs):
    if not raw and not (update_fields and set(update_fields) <= {"last_login", "password"}):
        pagecache.changed(pagecache.DECKS)  # a renamed owner
