"""Card data invariants: derived colours, and the database refusing what breaks them."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from cards import services
from cards.models import Card, Keyword, validate_cost

pytestmark = pytest.mark.django_db


def test_colours_are_derived_from_the_cost_and_follow_its_changes(game):
    card = Card.objects.get(slug="healing")
    assert [c.slug for c in card.colours.all()] == ["green"]
    card.cost = {"creation": 1, "death": 1}
    card.save()
    assert sorted(c.slug for c in card.colours.all()) == ["black", "yellow"]
    assert (card.colour_count, card.total_cost) == (2, 2)


def test_a_card_without_cost_is_colourless(game):
    card = Card.objects.get(slug="quiet-prayer")
    assert card.colours.count() == 0 and card.colour_count == 0


def test_validate_cost_accepts_known_domains_in_game_order(game):
    assert list(validate_cost(game, {"death": 1, "creation": 2})) == ["creation", "death"]
    assert validate_cost(game, None) == {}


@pytest.mark.parametrize("cost", [{"air": 1}, {"life": 0}, {"life": "1"}, {"life": True}, [1]])
def test_validate_cost_rejects_bad_costs(game, cost):
    with pytest.raises(ValidationError):
        validate_cost(game, cost)


def test_card_names_are_unique_per_game_whatever_the_case(game):
    with pytest.raises(IntegrityError), transaction.atomic():
        Card.objects.create(
            game=game, slug="healing-2", name="HEALING", rarity=game.rarities.first()
        )


def test_card_slugs_are_unique_per_game(game):
    with pytest.raises(IntegrityError), transaction.atomic():
        Card.objects.create(game=game, slug="healing", name="Other", rarity=game.rarities.first())


def test_the_database_refuses_an_empty_card_name(game):
    with pytest.raises(IntegrityError), transaction.atomic():
        Card.objects.create(game=game, slug="x", name="", rarity=game.rarities.first())


def test_card_clean_reports_a_bad_cost_on_the_cost_field(game):
    card = Card(game=game, name="Bad", rarity=game.rarities.first(), cost={"air": 1})
    with pytest.raises(ValidationError) as error:
        card.full_clean()
    assert "cost" in error.value.message_dict


def test_keywords_by_name_reuses_existing_keywords_in_any_case(game):
    before = Keyword.objects.count()
    keld, new = services.keywords_by_name(game=game, names=["KELD", "Brand New", " "])
    assert keld.is_faction and not new.is_faction
    assert Keyword.objects.count() == before + 1


def test_save_game_is_idempotent(game):
    import json

    from tests.conftest import SAMPLE

    definition = json.loads(SAMPLE.read_text())["game"]
    counts = (game.colours.count(), game.rarities.count(), game.keywords.count())
    services.save_game(definition=definition)
    assert (game.colours.count(), game.rarities.count(), game.keywords.count()) == counts


def test_a_format_is_checked_against_the_engine_schema_when_saved_from_a_form(game):
    version = game.default_format().current
    version.rules = [{"rule": "deck_size", "exactly": -1}, {"rule": "no_such_rule"}]
    with pytest.raises(ValidationError) as error:
        version.full_clean()
    assert len(error.value.message_dict["rules"]) == 2


def test_save_game_refuses_a_bad_format(game):
    import json

    from tests.conftest import SAMPLE

    definition = json.loads(SAMPLE.read_text())["game"]
    [standard] = definition["formats"]
    bad = {
        **standard,
        "versions": [
            {**standard["versions"][0], "rules": [{"rule": "deck_size", "exactly": "ten"}]}
        ],
    }
    with pytest.raises(ValueError, match="deck_size"):
        services.save_game(definition={**definition, "formats": [bad]})
    assert game.default_format().rules == standard["versions"][-1]["rules"]
