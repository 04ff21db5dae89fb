"""The one invalidation design: every model of `cards` and `deckbuilder` is either registered
(its writes move its game's rules_version, which kept pages are keyed on), read in the keys of
the pages that show it, or not shown on a kept page, with the reason."""

from django.apps import apps

from cards.signals import REGISTRY, RELATIONS
from deckbuilder.pages import KEYED, NOT_SHOWN


def test_every_model_is_registered_keyed_or_not_shown_with_a_reason():
    models = [
        *apps.get_app_config("cards").get_models(),
        *apps.get_app_config("deckbuilder").get_models(),
    ]
    accounted = {*REGISTRY, *KEYED, *NOT_SHOWN}
    assert [m.__name__ for m in models if m not in accounted] == []
    assert all(reason.strip() for reason in {**KEYED, **NOT_SHOWN}.values())


def test_every_many_to_many_relation_of_a_registered_model_is_registered():
    relations = {
        field.remote_field.through for model in REGISTRY for field in model._meta.local_many_to_many
    }
    assert relations == set(RELATIONS)
