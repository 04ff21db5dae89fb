"""Deck services: counts, copies, verdicts kept true when reference data changes, constraints."""

import copy
import json
from pathlib import Path

import pytest
from django.db import IntegrityError, transaction

from cards import services as card_services
from cards.models import Card, FormatVersion, Game, Leader
from deckbuilder import services
from deckbuilder.models import Deck, DeckCard, Visibility
from tests.factories import GOTTFRIED_TEN, cards, leader

SAMPLE = Path(__file__).resolve().parents[2] / "cards" / "sample" / "card-of-gods.json"
pytestmark = pytest.mark.django_db


def stored(deck) -> Deck:
    return Deck.objects.select_related("game", "format", "leader").get(pk=deck.pk)


def counts_of(deck) -> dict[str, int]:
    return {e.card.slug: e.count for e in DeckCard.objects.filter(deck=deck).select_related("card")}


def assert_verdict_is_fresh(deck):
    """The stored verdict is what the engine says now about the stored deck."""
    deck = stored(deck)
    entries = services.entries_of(deck)
    leader = (
        Leader.objects.prefetch_related("colours", "keywords", "loyalties").get(pk=deck.leader_id)
        if deck.leader_id
        else None
    )
    report = services.judge(
        fmt=deck.format, leader=leader, contents={(e.card, e.section): e.count for e in entries}
    )
    assert deck.legal is report.legal
    assert deck.card_count == report.card_count
    assert deck.problems == [p.as_dict() for p in report.problems]
    return deck


@pytest.fixture
def legal_deck(game, alice):
    deck = services.deck_create(
        owner=alice,
        game=game,
        name="Gottfried ten",
        leader=leader(game, "gottfried"),
        visibility=Visibility.PUBLIC,
        contents=cards(game, GOTTFRIED_TEN),
    )
    assert stored(deck).legal
    return deck


# --- create / update ---------------------------------------------------------------------------


def test_deck_create_stores_counts_and_the_engines_verdict(legal_deck):
    deck = assert_verdict_is_fresh(legal_deck)
    assert counts_of(deck) == GOTTFRIED_TEN
    assert deck.legal and deck.card_count == 10 and deck.problems == []
    assert deck.version == 1


def test_deck_create_saves_an_illegal_draft_with_its_problems(game, alice):
    deck = services.deck_create(
        owner=alice,
        game=game,
        name="Draft",
        leader=leader(game, "kellantra"),
        contents=cards(game, {"despair": 2}),
    )
    deck = assert_verdict_is_fresh(deck)
    assert not deck.legal
    assert [(p["code"], p["card"]) for p in deck.problems] == [
        ("deck_size", None),
        ("colour_mismatch", "despair"),
    ]


def test_deck_create_refuses_an_illegal_public_deck_and_writes_nothing(game, alice):
    before = (Deck.objects.count(), DeckCard.objects.count())
    with pytest.raises(services.DeckNotLegal) as refused:
        services.deck_create(
            owner=alice,
            game=game,
            name="Too small",
            leader=leader(game, "gottfried"),
            visibility=Visibility.PUBLIC,
            contents=cards(game, {"despair": 2}),
        )
    assert [p.code for p in refused.value.report.problems] == ["deck_size"]
    assert (Deck.objects.count(), DeckCard.objects.count()) == before


def test_deck_update_refuses_public_for_an_illegal_deck_and_writes_nothing(game, alice):
    deck = services.deck_create(
        owner=alice, game=game, name="Draft", contents=cards(game, {"despair": 2})
    )
    with pytest.raises(services.DeckNotLegal):
        services.deck_update(deck=deck, visibility=Visibility.PUBLIC, name="Renamed")
    deck = stored(deck)
    assert (deck.visibility, deck.name, deck.version) == (Visibility.PRIVATE, "Draft", 1)


def test_deck_update_with_a_stale_version_raises_and_writes_nothing(legal_deck):
    services.deck_update(deck=legal_deck, name="Second")
    with pytest.raises(services.VersionMismatch):
        services.deck_update(deck=legal_deck, expected_version=1, name="Third")
    deck = stored(legal_deck)
    assert (deck.name, deck.version) == ("Second", 2)


# --- deck_set_count ----------------------------------------------------------------------------


def test_without_an_expected_version_the_last_write_wins(legal_deck):
    read_earlier = stored(legal_deck)
    services.deck_update(deck=stored(legal_deck), name="First")
    services.deck_update(deck=read_earlier, name="Second")  # read before "First" was written
    assert stored(legal_deck).name == "Second"


@pytest.mark.parametrize("write", ["update", "delete", "set_count"])
def test_a_write_to_a_deck_deleted_meanwhile_is_a_404_not_a_crash(legal_deck, write):
    from django.http import Http404

    read_earlier = stored(legal_deck)
    services.deck_delete(deck=stored(legal_deck))
    card = Card.objects.get(game=legal_deck.game, slug="despair")
    calls = {
        "update": lambda: services.deck_update(deck=read_earlier, name="Too late"),
        "delete": lambda: services.deck_delete(deck=read_earlier),
        "set_count": lambda: services.deck_set_count(deck=read_earlier, card=card, count=2),
    }
    with pytest.raises(Http404):
        calls[write]()
    assert not Deck.objects.filter(pk=legal_deck.pk).exists()


def test_deck_set_count_adds_changes_and_removes_a_card(game, alice):
    deck = services.deck_create(
        owner=alice, game=game, name="Builder", leader=leader(game, "gottfried")
    )
    despair, lightning = Card.objects.get(slug="despair"), Card.objects.get(slug="lightning")

    services.deck_set_count(deck=deck, card=despair, count=2)
    assert counts_of(deck) == {"despair": 2}
    services.deck_set_count(deck=deck, card=lightning, count=1)
    assert counts_of(deck) == {"despair": 2, "lightning": 1}
    services.deck_set_count(deck=deck, card=despair, count=3)
    assert counts_of(deck) == {"despair": 3, "lightning": 1}
    services.deck_set_count(deck=deck, card=despair, count=0)
    assert counts_of(deck) == {"lightning": 1}

    deck = assert_verdict_is_fresh(deck)
    assert deck.card_count == 1
    assert deck.version == 5  # created, then four changes


def test_deck_set_count_writes_only_the_entry_it_changes(game, alice):
    deck = services.deck_create(
        owner=alice, game=game, name="Builder", contents=cards(game, GOTTFRIED_TEN)
    )
    rows = dict(deck.entries.values_list("card__slug", "pk"))
    despair, healing = Card.objects.get(slug="despair"), Card.objects.get(slug="healing")
    services.deck_set_count(deck=deck, card=despair, count=lambda n: n - 1)
    services.deck_set_count(deck=deck, card=healing, count=lambda n: n + 1)
    services.deck_set_count(deck=deck, card=Card.objects.get(slug="punishment"), count=0)
    now = dict(deck.entries.values_list("card__slug", "pk"))
    # the others keep their rows; the new card has a row of its own, the removed one none
    assert {slug: now[slug] for slug in rows if slug != "punishment"} == {
        slug: pk for slug, pk in rows.items() if slug != "punishment"
    }
    assert "punishment" not in now and now["healing"] not in rows.values()
    expected = {**GOTTFRIED_TEN, "despair": 2, "healing": 1}
    del expected["punishment"]
    assert counts_of(deck) == expected
    assert_verdict_is_fresh(deck)


def test_deck_set_count_hands_back_the_entries_as_they_now_are(game, alice):
    deck = services.deck_create(
        owner=alice, game=game, name="Builder", contents=cards(game, {"despair": 1})
    )
    healing = Card.objects.get(slug="healing")
    changed = services.deck_set_count(deck=deck, card=healing, count=lambda n: n + 2)
    handed = {(e.card.slug, e.section): e.count for e in changed.entries.all()}
    assert handed == {("despair", "main"): 1, ("healing", "main"): 2}
    removed = services.deck_set_count(deck=deck, card=healing, count=lambda n: 0)
    assert {e.card.slug for e in removed.entries.all()} == {"despair"}
    assert {e.card.slug for e in Deck.objects.get(pk=deck.pk).entries.all()} == {"despair"}


def test_deck_set_count_clamps_to_0_and_99(game, alice):
    deck = services.deck_create(owner=alice, game=game, name="Builder")
    despair = Card.objects.get(slug="despair")
    services.deck_set_count(deck=deck, card=despair, count=150)
    assert counts_of(deck) == {"despair": 99}
    assert stored(deck).card_count == 99
    services.deck_set_count(deck=deck, card=despair, count=-4)
    assert counts_of(deck) == {}
    assert stored(deck).card_count == 0


def test_deck_set_count_judges_the_deck(game, alice):
    deck = services.deck_create(
        owner=alice,
        game=game,
        name="Nine",
        leader=leader(game, "gottfried"),
        contents=cards(game, {**GOTTFRIED_TEN, "blood-pact": 0}),
    )
    assert not stored(deck).legal
    services.deck_set_count(deck=deck, card=Card.objects.get(slug="blood-pact"), count=1)
    assert assert_verdict_is_fresh(deck).legal
    services.deck_set_count(deck=deck, card=Card.objects.get(slug="blood-pact"), count=2)
    deck = assert_verdict_is_fresh(deck)
    assert {p["code"] for p in deck.problems} == {"deck_size", "copy_limit"}


def test_deck_set_count_takes_a_function_of_the_count_held_and_writes_nothing_unchanged(
    game, alice
):
    deck = services.deck_create(owner=alice, game=game, name="Builder")
    despair = Card.objects.get(slug="despair")
    services.deck_set_count(deck=deck, card=despair, count=lambda n: n + 1)
    services.deck_set_count(deck=deck, card=despair, count=lambda n: n + 1)
    assert counts_of(deck) == {"despair": 2}
    version = stored(deck).version
    services.deck_set_count(deck=deck, card=despair, count=lambda n: min(n, 2))
    assert stored(deck).version == version  # no change: no write, no history version
    services.deck_set_count(deck=deck, card=despair, count=lambda n: n - 5)
    assert counts_of(deck) == {}


def test_deck_set_count_judges_with_reference_data_changed_earlier_in_its_transaction(game, alice):
    from cards import vocabulary

    deck = services.deck_create(
        owner=alice,
        game=game,
        name="Greens",
        leader=leader(game, "kellantra"),
        contents=cards(game, {"plant-a-seed": 1}),
    )
    vocabulary.of(Game.objects.get(pk=game.pk))  # the game's words cached, as a page leaves them
    with transaction.atomic():
        plant = game.keywords.get(name="Plant")  # a word of the cached vocabulary changes
        plant.is_faction = True
        plant.save()
        services.deck_set_count(deck=deck, card=Card.objects.get(slug="plant-a-seed"), count=2)
    deck = assert_verdict_is_fresh(deck)
    assert ("faction_mismatch", "plant-a-seed") in {
        (p["code"], p.get("card")) for p in deck.problems
    }


# --- deck_copy ---------------------------------------------------------------------------------


def test_deck_copy_is_a_private_deck_of_the_copier(legal_deck, bob):
    copied = services.deck_copy(deck=legal_deck, owner=bob)
    copied = assert_verdict_is_fresh(copied)
    assert copied.owner == bob
    assert copied.visibility == Visibility.PRIVATE
    assert copied.pk != legal_deck.pk and copied.share_id != legal_deck.share_id
    assert copied.leader_id == legal_deck.leader_id
    assert copied.name == "Copy of Gottfried ten"
    assert counts_of(copied) == GOTTFRIED_TEN and copied.legal
    original = stored(legal_deck)
    assert original.owner.username == "alice" and original.visibility == Visibility.PUBLIC
    assert counts_of(original) == GOTTFRIED_TEN


# --- verdicts follow the reference data ----------------------------------------------------------


def test_card_cost_change_through_the_api_makes_the_deck_illegal_and_back(legal_deck, staff_api):
    url = "/api/games/card-of-gods/cards/punishment/"
    response = staff_api.patch(url, {"cost": {"life": 2}}, format="json")
    assert response.status_code == 200, response.content
    deck = assert_verdict_is_fresh(legal_deck)
    assert not deck.legal
    assert [(p["code"], p["card"]) for p in deck.problems] == [("colour_mismatch", "punishment")]
    assert deck.visibility == Visibility.PUBLIC  # stays public, showing its problems
    assert deck.version == 2

    response = staff_api.patch(url, {"cost": {"creation": 2}}, format="json")
    assert response.status_code == 200, response.content
    deck = assert_verdict_is_fresh(legal_deck)
    assert deck.legal and deck.problems == []
    assert deck.version == 3


def test_card_cost_change_through_save_card_makes_the_deck_illegal_and_back(legal_deck, game):
    lightning = Card.objects.get(game=game, slug="lightning")
    card_services.save_card(game=game, card=lightning, fields={"cost": {"life": 1}}, keywords=[])
    deck = assert_verdict_is_fresh(legal_deck)
    assert [(p["code"], p["card"]) for p in deck.problems] == [("colour_mismatch", "lightning")]

    card_services.save_card(
        game=game, card=lightning, fields={"cost": {"destruction": 1}}, keywords=[]
    )
    assert assert_verdict_is_fresh(legal_deck).legal


def test_a_faction_keyword_on_a_card_makes_the_deck_illegal_and_back(legal_deck, game):
    despair = Card.objects.get(game=game, slug="despair")
    card_services.save_card(game=game, card=despair, fields={}, keywords=["Abyss"])
    deck = assert_verdict_is_fresh(legal_deck)
    assert [(p["code"], p["card"]) for p in deck.problems] == [("faction_mismatch", "despair")]

    card_services.save_card(game=game, card=despair, fields={}, keywords=["Kriegmark"])
    assert assert_verdict_is_fresh(legal_deck).legal  # Gottfried is Kriegmark

    card_services.save_card(game=game, card=despair, fields={}, keywords=[])
    assert assert_verdict_is_fresh(legal_deck).legal


def test_a_plain_keyword_becoming_a_faction_makes_the_deck_illegal(legal_deck, game):
    despair = Card.objects.get(game=game, slug="despair")
    card_services.save_card(game=game, card=despair, fields={}, keywords=["Shadow"])
    assert assert_verdict_is_fresh(legal_deck).legal
    shadow = game.keywords.get(name="Shadow")
    shadow.is_faction = True
    shadow.save()
    deck = assert_verdict_is_fresh(legal_deck)
    assert [(p["code"], p["card"]) for p in deck.problems] == [("faction_mismatch", "despair")]


def _definition(rules):
    """The sample game's definition with `rules` as its (only) format's rules, in each of its
    versions."""
    definition = copy.deepcopy(json.loads(SAMPLE.read_text())["game"])
    [standard] = definition["formats"]
    for version in standard["versions"]:
        version["rules"] = rules
    return definition


def test_a_format_change_through_save_game_rejudges_and_reverts(legal_deck, game):
    original = copy.deepcopy(game.default_format().rules)
    nine = [
        r if r["rule"] != "deck_size" else {"rule": "deck_size", "exactly": 9} for r in original
    ]
    card_services.save_game(definition=_definition(nine))
    deck = assert_verdict_is_fresh(legal_deck)
    assert [p["code"] for p in deck.problems] == ["deck_size"]
    assert "exactly 9 cards" in deck.problems[0]["message"]

    card_services.save_game(definition=_definition(original))
    assert assert_verdict_is_fresh(legal_deck).legal


def test_a_format_change_through_format_save_rejudges_and_reverts(legal_deck, game):
    version = game.default_format().current
    original = copy.deepcopy(version.rules)
    version.rules = [{"rule": "deck_size", "exactly": 9}]
    version.save()
    deck = assert_verdict_is_fresh(legal_deck)
    assert [p["code"] for p in deck.problems] == ["deck_size"]

    version.rules = original
    version.save()
    assert assert_verdict_is_fresh(legal_deck).legal


def test_a_leader_losing_a_colour_makes_the_deck_illegal_and_back(legal_deck, game):
    gottfried = leader(game, "gottfried")
    colours = list(gottfried.colours.all())
    card_services.save_leader(
        game=game,
        leader=gottfried,
        fields={},
        colours=[c for c in colours if c.slug != "black"],
        keywords=["Kriegmark"],
    )
    deck = assert_verdict_is_fresh(legal_deck)
    assert [(p["code"], p["card"]) for p in deck.problems] == [
        ("colour_mismatch", "blood-pact"),
        ("colour_mismatch", "despair"),
    ]
    card_services.save_leader(
        game=game, leader=gottfried, fields={}, colours=colours, keywords=["Kriegmark"]
    )
    assert assert_verdict_is_fresh(legal_deck).legal


def test_refresh_leaves_unrelated_decks_alone(legal_deck, game, bob):
    other = services.deck_create(
        owner=bob,
        game=game,
        name="Kellantra draft",
        leader=leader(game, "kellantra"),
        contents=cards(game, {"healing": 2}),
    )
    lightning = Card.objects.get(game=game, slug="lightning")
    card_services.save_card(game=game, card=lightning, fields={"cost": {"life": 1}}, keywords=[])
    assert stored(other).version == 1
    assert stored(legal_deck).version == 2


def test_refresh_legality_reports_how_many_changed(legal_deck, game):
    FormatVersion.objects.filter(format=stored(legal_deck).format_id).update(
        rules=[{"rule": "deck_size", "exactly": 9}]
    )  # no signal: refresh_legality is called below

    def decks():
        return Deck.objects.filter(pk=legal_deck.pk).select_related("game", "format", "leader")

    assert services.refresh_legality(decks=decks()) == 1
    assert services.refresh_legality(decks=decks()) == 0  # already true: nothing to change
    assert not stored(legal_deck).legal


# --- database constraints ----------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 100])
def test_deckcard_count_outside_1_to_99_is_refused_by_the_database(legal_deck, game, count):
    healing = Card.objects.get(game=game, slug="healing")
    with pytest.raises(IntegrityError), transaction.atomic():
        DeckCard.objects.create(deck=legal_deck, card=healing, count=count)


@pytest.mark.parametrize("count", [1, 99])
def test_deckcard_count_at_the_bounds_is_accepted(legal_deck, game, count):
    healing = Card.objects.get(game=game, slug="healing")
    DeckCard.objects.create(deck=legal_deck, card=healing, count=count)
    assert DeckCard.objects.get(deck=legal_deck, card=healing).count == count


def test_a_second_row_for_the_same_card_is_refused_by_the_database(legal_deck, game):
    despair = Card.objects.get(game=game, slug="despair")
    with pytest.raises(IntegrityError), transaction.atomic():
        DeckCard.objects.create(deck=legal_deck, card=despair, count=1)
    assert counts_of(legal_deck) == GOTTFRIED_TEN


def test_a_deck_without_leader_round_trips_through_text(alice, game):
    healing = Card.objects.get(slug="healing")
    draft = services.deck_create(
        owner=alice, game=game, name="Draft", contents={(healing, "main"): 2}
    )
    copy = services.deck_import(owner=alice, game=game, text=services.deck_export_text(draft))
    assert copy.leader is None
    assert {e.card.slug: e.count for e in copy.entries.all()} == {"healing": 2}


# --- deck sections (Force of Will: main, stones, side) -------------------------------------------


# Ten main-deck cards of the Force of Will sample, four each: a legal 40-card main deck.
FOW_MAIN = {
    slug: 4
    for slug in (
        "lantern-acolyte",
        "dawnspire-paladin",
        "vow-of-the-bright-shield",
        "sanctum-of-echoing-bells",
        "cinder-hound",
        "emberforge-marshal",
        "kindled-spear",
        "blazing-standard",
        "crater-of-the-first-flame",
        "tidepool-scholar",
    )
}


@pytest.fixture
def fow_deck(alice):
    """A legal Constructed Force of Will deck: 40 main, 10 stones, 2 side."""
    fow = Game.objects.get(slug="force-of-will")
    deck = services.deck_create(
        owner=alice,
        game=fow,
        format=fow.formats.get(slug="constructed"),
        leader=leader(fow, "seraphine-of-the-dawn-bell"),
        name="Dawn bells",
        contents={
            **cards(fow, FOW_MAIN),
            **cards(fow, {"magic-stone-of-light": 8, "twilight-geode": 2}, "stones"),
            **cards(fow, {"magic-stone-of-light": 2}, "side"),
        },
    )
    assert assert_verdict_is_fresh(deck).legal
    return deck


def sections_of(deck) -> set[tuple[str, str, int]]:
    return set(DeckCard.objects.filter(deck=deck).values_list("card__slug", "section", "count"))


def test_the_same_card_may_have_a_row_in_each_section(fow_deck):
    rows = sections_of(fow_deck)
    assert {("magic-stone-of-light", "stones", 8), ("magic-stone-of-light", "side", 2)} <= rows
    assert stored(fow_deck).card_count == 52


def test_deck_set_count_changes_one_section_only(fow_deck):
    light = Card.objects.get(game__slug="force-of-will", slug="magic-stone-of-light")
    services.deck_set_count(deck=fow_deck, card=light, count=3, section="side")
    rows = sections_of(fow_deck)
    assert {("magic-stone-of-light", "stones", 8), ("magic-stone-of-light", "side", 3)} <= rows
    services.deck_set_count(deck=fow_deck, card=light, count=0, section="side")
    assert ("magic-stone-of-light", "stones", 8) in sections_of(fow_deck)
    deck = assert_verdict_is_fresh(fow_deck)
    assert [(p["code"], p["section"]) for p in deck.problems] == [("deck_size", "side")]


def test_deck_set_count_without_a_section_uses_the_first(fow_deck):
    undertow = Card.objects.get(game__slug="force-of-will", slug="undertow")
    services.deck_set_count(deck=fow_deck, card=undertow, count=1)
    assert ("undertow", "main", 1) in sections_of(fow_deck)


def test_deck_update_to_a_format_without_a_section_moves_its_cards_to_the_first(fow_deck):
    fow = Game.objects.get(slug="force-of-will")
    main_only = card_services.save_format(
        game=fow,
        data={
            "slug": "main-only",
            "name": "Main only",
            "sections": [{"slug": "main", "name": "Main deck"}],
            "rules": [],
        },
    )
    before = stored(fow_deck).card_count
    services.deck_update(deck=fow_deck, format=main_only)
    rows = sections_of(fow_deck)
    assert {section for _, section, _ in rows} == {"main"}
    assert ("magic-stone-of-light", "main", 10) in rows  # 8 stones + 2 side
    deck = assert_verdict_is_fresh(fow_deck)
    assert deck.card_count == before and deck.format == main_only


def test_a_format_losing_a_section_moves_the_decks_cards_and_rejudges(fow_deck):
    version = stored(fow_deck).format.current
    version.sections = [s for s in version.sections if s["slug"] != "side"]
    version.rules = [
        r for r in version.rules if "side" not in (r.get("deck"), *r.get("across", ()))
    ]
    version.save()
    rows = sections_of(fow_deck)
    assert "side" not in {section for _, section, _ in rows}
    assert ("magic-stone-of-light", "main", 2) in rows  # the side deck's two, now in main
    deck = assert_verdict_is_fresh(fow_deck)
    assert deck.card_count == 52
    assert [(p["code"], p["section"], p["card"]) for p in deck.problems] == [
        ("wrong_section", "main", "magic-stone-of-light")
    ]
