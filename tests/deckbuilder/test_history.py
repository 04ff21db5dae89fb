"""Deck history: every saved change is a version (services._save), the diff between versions
(deckbuilder.history), restoring a version (services.deck_restore_version), the history page
and its restore button, and the data migration that starts every existing deck's history.

Rapid changes fold into one version (test_history_merging.py): here that is off, so that each
change these tests make is a version of its own."""

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps as django_apps
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services as card_services
from cards.models import Card, Format, Game, Leader
from deckbuilder import history, services
from deckbuilder.history import MINUS, Change, Snapshot
from deckbuilder.models import Deck, DeckVersion, Visibility
from tests.factories import GOTTFRIED_TEN
from tests.html import meta, text_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("every_change_a_version")]


@pytest.fixture
def every_change_a_version(settings):
    settings.HISTORY_MERGE_SECONDS = 0


GAME = "card-of-gods"
# Gottfried (black, yellow, red; Kriegmark) may use all of these: a legal ten.


def card(slug, game=GAME) -> Card:
    return Card.objects.get(game__slug=game, slug=slug)


def leader(slug, game=GAME) -> Leader:
    return Leader.objects.get(game__slug=game, slug=slug)


def contents(counts: dict[str, int], section="main", game=GAME) -> dict:
    return {(card(slug, game), section): n for slug, n in counts.items()}


def make_deck(owner, counts=None, *, visibility=Visibility.PRIVATE, lead="gottfried", name="Gf"):
    return services.deck_create(
        owner=owner,
        game=Game.objects.get(slug=GAME),
        leader=leader(lead),
        name=name,
        visibility=visibility,
        contents=contents(counts or {}),
    )


def fresh(deck) -> Deck:
    return Deck.objects.select_related("format", "leader").get(pk=deck.pk)


def counts_of(deck) -> dict[tuple[str, str], int]:
    return {(e.card.slug, e.section): e.count for e in deck.entries.select_related("card")}


def numbers(deck) -> list[int]:
    return list(deck.versions.order_by("number").values_list("number", flat=True))


def version_counts(version) -> dict[tuple[str, str], int]:
    return {(r["card"], r["section"]): r["count"] for r in version.contents}


def casual_format(game_slug=GAME) -> Format:
    """A second, two-section format for Card of Gods (no rules: anything goes)."""
    return card_services.save_format(
        game=Game.objects.get(slug=game_slug),
        data={
            "slug": "casual",
            "name": "Casual",
            "sections": [{"slug": "main", "name": "Deck"}, {"slug": "side", "name": "Side deck"}],
            "rules": [],
        },
    )


# --- recording: every saved change is a version ------------------------------------------------


def test_creating_a_deck_records_version_1_with_its_contents_and_card_names(alice):
    deck = make_deck(alice, {"despair": 2, "healing": 1})
    [version] = deck.versions.all()
    assert (version.number, version.name, version.format, version.leader) == (
        1,
        "Gf",
        deck.format,
        leader("gottfried"),
    )
    assert version.contents == [
        {"card": "despair", "name": "Despair", "section": "main", "count": 2},
        {"card": "healing", "name": "Healing", "section": "main", "count": 1},
    ]
    assert (version.card_count, version.legal) == (3, False)


def test_every_saved_change_is_a_version_numbered_as_the_decks_version(alice):
    deck = make_deck(alice, {"despair": 1})
    services.deck_set_count(deck=deck, card=card("healing"), count=2)
    services.deck_update(deck=deck, name="Renamed")
    services.deck_update(deck=deck, leader=leader("richard"), contents=contents({"lightning": 1}))
    deck = fresh(deck)
    assert numbers(deck) == [1, 2, 3, 4] and deck.version == 4
    latest = deck.versions.latest()
    assert (latest.name, latest.leader.slug, version_counts(latest)) == (
        "Renamed",
        "richard",
        {("lightning", "main"): 1},
    )
    assert version_counts(deck.versions.get(number=2)) == {
        ("despair", "main"): 1,
        ("healing", "main"): 2,
    }


def test_the_snapshot_holds_the_final_contents_when_a_count_goes_to_zero(alice):
    deck = make_deck(alice, {"despair": 1, "healing": 1})
    services.deck_set_count(deck=deck, card=card("despair"), count=0)
    latest = deck.versions.latest()
    assert version_counts(latest) == {("healing", "main"): 1} == counts_of(deck)
    assert latest.card_count == fresh(deck).card_count == 1


def test_a_format_change_records_the_cards_moved_to_the_new_formats_sections(alice):
    casual = casual_format()
    deck = make_deck(alice)
    services.deck_update(deck=deck, format=casual, contents=contents({"healing": 2}, "side"))
    standard = Game.objects.get(slug=GAME).formats.get(slug="standard")
    services.deck_update(deck=deck, format=standard)  # no side deck: side moves to main
    assert version_counts(deck.versions.get(number=2)) == {("healing", "side"): 2}
    assert version_counts(deck.versions.get(number=3)) == {("healing", "main"): 2}
    assert counts_of(deck) == {("healing", "main"): 2}


def test_a_refused_change_records_no_version_and_writes_nothing(alice):
    deck = make_deck(alice, GOTTFRIED_TEN, visibility=Visibility.PUBLIC)
    with pytest.raises(services.DeckNotLegal):
        services.deck_set_count(deck=deck, card=card("despair"), count=0)
    assert numbers(deck) == [1] and fresh(deck).version == 1


def test_moderation_and_refreshed_verdicts_bump_the_version_without_a_new_version(alice, staff):
    deck = make_deck(alice, GOTTFRIED_TEN, visibility=Visibility.PUBLIC)
    services.deck_unpublish(deck=deck, by=staff, reason="Spam name.")
    services.deck_restore(deck=deck, by=staff)
    Card.objects.filter(slug="despair", game__slug=GAME).update(rarity=None)
    services.refresh_legality(decks=[fresh(deck)])
    assert fresh(deck).version > 1
    assert numbers(deck) == [1]  # none of these is a change by the owner
    services.deck_update(deck=deck, name="Next")
    assert numbers(deck) == [1, fresh(deck).version]  # the numbers skip those bumps


def test_deleting_a_deck_deletes_its_history(alice):
    deck = make_deck(alice, {"despair": 1})
    services.deck_update(deck=deck, name="Two")
    services.deck_delete(deck=deck)
    assert not DeckVersion.objects.filter(deck_id=deck.pk).exists()


def test_a_version_number_is_unique_per_deck_and_at_least_1(alice):
    deck = make_deck(alice)
    first = deck.versions.get()
    fields = {"deck": deck, "name": "x", "format": first.format}
    with pytest.raises(IntegrityError), transaction.atomic():
        DeckVersion.objects.create(number=1, **fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        DeckVersion.objects.create(number=0, **fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        DeckVersion.objects.create(number=7, **{**fields, "name": ""})


def test_the_data_migration_starts_each_decks_history_with_its_current_state(alice, bob):
    changed = make_deck(alice, {"despair": 2, "healing": 1}, name="Old one")
    services.deck_update(deck=changed, name="Older one")
    empty = make_deck(bob, name="Empty")
    DeckVersion.objects.all().delete()  # as before the migration
    Deck.objects.filter(pk=changed.pk).update(version=7)

    migration = importlib.import_module("deckbuilder.migrations.0007_deck_versions")
    migration.record_current_state(django_apps, SimpleNamespace(connection=connection))

    [version] = DeckVersion.objects.filter(deck=changed)
    assert (version.number, version.name, version.card_count) == (7, "Older one", 3)
    assert version.created == fresh(changed).updated
    assert version.contents == changed.versions.get().contents
    assert version_counts(version) == {("despair", "main"): 2, ("healing", "main"): 1}
    assert [(v.number, v.contents) for v in DeckVersion.objects.filter(deck=empty)] == [(1, [])]
    services.deck_set_count(deck=changed, card=card("despair"), count=1)  # history goes on
    assert numbers(changed) == [7, 8]


# --- the diff ---------------------------------------------------------------------------------


def snap(cards=(), *, name="Deck", fmt="Standard", lead="Richard", sections=(("main", "Deck"),)):
    rows = [
        {"card": slug, "name": slug.replace("-", " ").title(), "section": section, "count": n}
        for slug, section, n in cards
    ]
    return Snapshot(name=name, format=fmt, leader=lead, sections=sections, contents=tuple(rows))


def texts(changes: list[Change]) -> list[str]:
    return [str(c) for c in changes]


def test_diff_says_cards_added_then_removed_with_a_real_minus_sign():
    old = snap([("despair", "main", 3), ("healing", "main", 1), ("lightning", "main", 2)])
    new = snap([("despair", "main", 2), ("healing", "main", 3), ("punishment", "main", 1)])
    changes = history.diff(old, new)
    assert texts(changes) == ["+2 Healing", "+1 Punishment", "−1 Despair", "−2 Lightning"]
    assert MINUS == "\u2212" and "-" not in "".join(texts(changes))
    assert [c.kind for c in changes] == ["added", "added", "removed", "removed"]


def test_diff_names_name_format_and_leader_changes_with_arrows():
    old = snap([("despair", "main", 1)], name="A", fmt="Standard", lead="Richard")
    new = snap([("despair", "main", 1)], name="B", fmt="Casual", lead="Gottfried")
    assert texts(history.diff(old, new, leader_label="expedition leader")) == [
        "name “A” → “B”",
        "format Standard → Casual",
        "expedition leader Richard → Gottfried",
    ]
    assert texts(history.diff(snap(lead=None), snap(lead="Kellantra"))) == [
        "leader none → Kellantra"
    ]


def test_diff_names_the_section_when_a_format_has_several():
    two = (("main", "Main deck"), ("side", "Side deck"))
    old = snap([("chant", "main", 2)], sections=two)
    new = snap([("chant", "main", 1), ("chant", "side", 1), ("bolt", "main", 1)], sections=two)
    assert texts(history.diff(old, new)) == [
        "+1 Bolt (Main deck)",
        "−1 Chant (Main deck)",
        "+1 Chant (Side deck)",
    ]


def test_diff_to_a_one_section_format_still_names_the_sections_cards_left():
    two = (("main", "Deck"), ("side", "Side deck"))
    old = snap([("chant", "side", 2)], fmt="Casual", sections=two)
    new = snap([("chant", "main", 2)])
    assert texts(history.diff(old, new)) == [
        "format Casual → Standard",
        "+2 Chant (Deck)",
        "−2 Chant (Side deck)",
    ]


def test_diff_of_the_first_version_says_created_with_how_many_cards():
    assert texts(history.diff(None, snap([("a", "main", 3), ("b", "main", 2)]))) == [
        "Created with 5 cards"
    ]
    assert texts(history.diff(None, snap([("a", "main", 1)]))) == ["Created with 1 card"]
    assert texts(history.diff(snap(), snap())) == []


def test_diff_reads_well_after_a_card_is_deleted_and_shows_the_newest_name():
    old = snap([("gone", "main", 2)])
    assert texts(history.diff(old, snap())) == ["−2 Gone"]
    renamed = Snapshot(
        name="Deck",
        format="Standard",
        leader="Richard",
        sections=(("main", "Deck"),),
        contents=({"card": "gone", "name": "New Name", "section": "main", "count": 3},),
    )
    assert texts(history.diff(old, renamed)) == ["+1 New Name"]


def test_a_snapshot_of_a_stored_version_reads_its_format_leader_and_sections(alice):
    deck = make_deck(alice, {"despair": 1})
    snapshot = Snapshot.of(deck.versions.select_related("format", "leader").get())
    assert (snapshot.name, snapshot.format, snapshot.leader, snapshot.sections) == (
        "Gf",
        "Standard",
        "Gottfried",
        (("main", "Deck of Gods"),),
    )
    assert snapshot.card_count == 1


# --- restoring --------------------------------------------------------------------------------


def test_restore_brings_back_format_leader_and_cards_as_a_new_version(alice):
    casual = casual_format()
    deck = make_deck(alice, {"despair": 2}, lead="richard", visibility=Visibility.UNLISTED)
    services.deck_update(
        deck=deck,
        name="New name",
        description="Words.",
        format=casual,
        leader=leader("kellantra"),
        contents=contents({"healing": 1}, "side"),
    )
    restored = services.deck_restore_version(deck=deck, number=1)
    deck = fresh(deck)
    assert restored.skipped == [] and restored.deck.version == deck.version == 3
    assert (deck.format.slug, deck.leader.slug) == ("standard", "richard")
    assert counts_of(deck) == {("despair", "main"): 2}
    assert (deck.name, deck.description, deck.visibility) == ("New name", "Words.", "unlisted")
    assert numbers(deck) == [1, 2, 3]
    assert version_counts(deck.versions.latest()) == {("despair", "main"): 2}
    assert deck.card_count == 2 and not deck.legal  # judged as any change


def test_restore_puts_cards_back_in_their_sections(alice):
    casual = casual_format()
    deck = make_deck(alice)
    services.deck_update(
        deck=deck, format=casual, contents=contents({"healing": 1, "despair": 2}, "side")
    )
    services.deck_update(deck=deck, format=Game.objects.get(slug=GAME).default_format())
    assert counts_of(deck) == {("healing", "main"): 1, ("despair", "main"): 2}
    services.deck_restore_version(deck=deck, number=2)
    assert counts_of(deck) == {("healing", "side"): 1, ("despair", "side"): 2}
    assert fresh(deck).format == casual


def test_restore_of_an_illegal_version_of_a_public_deck_is_refused_and_writes_nothing(alice):
    deck = make_deck(alice, {"despair": 1})
    services.deck_update(deck=deck, visibility=Visibility.PUBLIC, contents=contents(GOTTFRIED_TEN))
    with pytest.raises(services.DeckNotLegal) as refused:
        services.deck_restore_version(deck=deck, number=1)
    assert not refused.value.report.legal
    deck = fresh(deck)
    assert (deck.version, numbers(deck)) == (2, [1, 2])
    assert counts_of(deck) == {(slug, "main"): n for slug, n in GOTTFRIED_TEN.items()}


def test_restore_skips_and_reports_cards_the_game_no_longer_has(alice, game):
    doomed = card_services.save_card(
        game=game,
        fields={"name": "Doomed Verse", "rarity": game.rarities.get(slug="common")},
        keywords=[],
    )
    deck = make_deck(alice, {"despair": 1, "doomed-verse": 2})
    services.deck_set_count(deck=deck, card=doomed, count=0)
    doomed.delete()  # no deck holds it now; version 1 still names it
    services.deck_set_count(deck=deck, card=card("healing"), count=1)
    restored = services.deck_restore_version(deck=deck, number=1)
    assert restored.skipped == ["Doomed Verse"]
    assert counts_of(deck) == {("despair", "main"): 1}
    assert fresh(deck).version == restored.number == 4


def test_restore_finds_a_card_renamed_since_by_its_slug_or_reslugged_by_its_name(alice):
    deck = make_deck(alice, {"despair": 1, "healing": 2})
    services.deck_update(deck=deck, contents={})
    Card.objects.filter(game__slug=GAME, slug="despair").update(name="Deep Despair")
    Card.objects.filter(game__slug=GAME, slug="healing").update(slug="healing-2")
    assert services.deck_restore_version(deck=deck, number=1).skipped == []
    assert counts_of(deck) == {("despair", "main"): 1, ("healing-2", "main"): 2}


def test_restore_of_a_version_the_deck_does_not_have_raises_does_not_exist(alice, bob):
    deck = make_deck(alice)
    other = make_deck(bob)
    services.deck_update(deck=other, name="Bob's second")
    with pytest.raises(DeckVersion.DoesNotExist):
        services.deck_restore_version(deck=deck, number=2)


# --- the history page -------------------------------------------------------------------------


def history_url(deck, query=""):
    return reverse("deck-history", args=[deck.share_id]) + (f"?{query}" if query else "")


def restore_url(deck, number):
    return reverse("deck-restore", args=[deck.share_id, number])


def login(client, who, users):
    if who != "anonymous":
        client.force_login(users[who])


MATRIX = [
    (visibility, who)
    for visibility in (Visibility.PRIVATE, Visibility.UNLISTED, Visibility.PUBLIC)
    for who in ("anonymous", "owner", "other", "staff")
]


@pytest.mark.parametrize(("visibility", "who"), MATRIX)
def test_history_is_seen_by_whoever_sees_the_deck_and_only_the_owner_may_restore(
    client, alice, bob, staff, visibility, who
):
    deck = make_deck(alice, GOTTFRIED_TEN, visibility=visibility)
    services.deck_update(deck=deck, name="Second")
    login(client, who, {"owner": alice, "other": bob, "staff": staff})
    response = client.get(history_url(deck))
    if visibility == Visibility.PRIVATE and who != "owner":
        assert response.status_code == 404
        return
    assert response.status_code == 200
    page = text_of(response)
    assert "History of Second" in page and "Version 2" in page and "Version 1" in page
    assert ("Restore version 1" in page) is (who == "owner")
    assert "Restore version 2" not in page  # the current version: nothing to restore


def test_history_lists_versions_newest_first_each_with_its_diff(client, alice):
    deck = make_deck(alice, {"despair": 3, "healing": 1}, lead="richard")
    services.deck_set_count(deck=deck, card=card("healing"), count=3)
    services.deck_update(
        deck=deck, leader=leader("gottfried"), contents=contents({"despair": 2, "healing": 3})
    )
    client.force_login(alice)
    page = text_of(client.get(history_url(deck)))
    assert "3 versions — newest first" in page
    v3, v2, v1 = page.index("Version 3"), page.index("Version 2"), page.index("Version 1")
    assert v3 < v2 < v1
    assert "expedition leader Richard → Gottfried −1 Despair" in page[v3:v2]
    assert "+2 Healing" in page[v2:v1]
    assert "Created with 4 cards" in page[v1:]
    assert "Current" in page[v3:v2]


def test_history_of_a_deck_older_than_history_says_where_it_starts(client, alice):
    deck = make_deck(alice, {"despair": 1})
    DeckVersion.objects.filter(deck=deck).update(number=5)  # as the data migration numbers it
    Deck.objects.filter(pk=deck.pk).update(version=5)
    client.force_login(alice)
    page = text_of(client.get(history_url(deck)))
    assert "Version 5" in page and "History starts here, with 1 card" in page
    assert "Created with" not in page


def test_history_page_has_its_title_description_and_is_not_indexed(client, alice):
    deck = make_deck(alice, visibility=Visibility.PUBLIC, counts=GOTTFRIED_TEN, name="Wall")
    response = client.get(history_url(deck))
    assert meta(response, "property", "og:title") == "History of Wall"
    assert meta(response, "property", "og:description") == (
        "1 version of Wall · Card of Gods deck by alice"
    )
    assert meta(response, "name", "description").startswith("Every saved change of Wall, a")
    assert meta(response, "name", "robots") == "noindex, nofollow"
    assert "<title>History of Wall — Card of Gods deck · Deckbuilder</title>" in (
        response.content.decode()
    )


def many_versions(deck, n):
    for i in range(n):
        services.deck_set_count(deck=deck, card=card("despair"), count=1 + i % 3)


def test_history_paginates_20_a_page_and_diffs_a_pages_oldest_with_the_one_before(client, alice):
    deck = make_deck(alice, {"despair": 3})
    many_versions(deck, 24)  # versions 1..25, despair 1,2,3,1,2,3...
    client.force_login(alice)
    first = text_of(client.get(history_url(deck)))
    assert "25 versions" in first
    assert "Version 25" in first and "Version 6 " in first and "Version 5 " not in first
    second = text_of(client.get(history_url(deck, "page=2")))
    assert "Version 5 " in second and "Version 1 " in second and "Version 6 " not in second
    assert "Created with 3 cards" in second
    # version 6 (on page 1) holds 3 despair, version 5 two: its diff reads the one before it
    sixth = first[first.index("Version 6 ") :]
    assert "+1 Despair" in sixth
    assert client.get(history_url(deck, "page=nonsense")).status_code == 200


def history_queries(client, deck) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(history_url(deck)).status_code == 200
    return len(queries)


def test_history_page_runs_the_same_queries_for_2_and_25_versions(client, alice):
    few = make_deck(alice, {"despair": 1}, name="Few")
    many_versions(few, 1)
    lots = make_deck(alice, {"despair": 1}, name="Lots")
    many_versions(lots, 24)
    client.force_login(alice)
    history_queries(client, few)  # warm per-process caches
    assert history_queries(client, few) == history_queries(client, lots) <= 8


# --- restoring from the page ------------------------------------------------------------------


@pytest.mark.parametrize(("visibility", "who"), MATRIX)
def test_only_the_owner_may_restore_others_get_403_or_404_and_nothing_changes(
    client, alice, bob, staff, visibility, who
):
    deck = make_deck(alice, GOTTFRIED_TEN, visibility=visibility)
    swapped = {**GOTTFRIED_TEN, "punishment": 0, "quiet-prayer": 1}  # legal ten too
    services.deck_update(deck=deck, name="Second", contents=contents(swapped))
    login(client, who, {"owner": alice, "other": bob, "staff": staff})
    response = client.post(restore_url(deck, 1))
    if who == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    elif who == "owner":
        assert response.status_code == 302 and response["Location"] == history_url(deck)
    else:
        expected = 404 if visibility == Visibility.PRIVATE else 403
        assert response.status_code == expected
    assert fresh(deck).version == (3 if who == "owner" else 2)


def test_restore_from_the_page_says_what_it_did(client, alice):
    deck = make_deck(alice, {"despair": 1})
    services.deck_update(deck=deck, contents=contents({"healing": 2}))
    client.force_login(alice)
    response = client.post(restore_url(deck, 1), follow=True)
    page = text_of(response)
    assert "Restored the cards, format and expedition leader of version 1 as version 3." in page
    assert counts_of(deck) == {("despair", "main"): 1}
    assert "Version 3" in page and "+1 Despair −2 Healing" in page


def test_restore_from_the_page_names_the_cards_left_out(client, alice, game):
    doomed = card_services.save_card(
        game=game,
        fields={"name": "Doomed Verse", "rarity": game.rarities.get(slug="common")},
        keywords=[],
    )
    deck = make_deck(alice, {"doomed-verse": 1, "despair": 1})
    services.deck_set_count(deck=deck, card=doomed, count=0)
    doomed.delete()
    client.force_login(alice)
    page = text_of(client.post(restore_url(deck, 1), follow=True))
    assert "Left out, no longer in Card of Gods: Doomed Verse." in page


def test_a_refused_restore_shows_the_problems_with_400_and_changes_nothing(client, alice):
    deck = make_deck(alice, {"despair": 1})
    services.deck_update(deck=deck, visibility=Visibility.PUBLIC, contents=contents(GOTTFRIED_TEN))
    client.force_login(alice)
    response = client.post(restore_url(deck, 1))
    assert response.status_code == 400
    page = text_of(response)
    assert "Only a legal deck can be public." in page
    assert "Version 1 was not restored" in page
    assert "The deck needs exactly 10 cards; it has 1." in page
    assert fresh(deck).version == 2


@pytest.mark.parametrize("number", ["3", "0", "99999999999999999999999"])
def test_restoring_a_version_the_deck_does_not_have_is_404(client, alice, number):
    deck = make_deck(alice)
    services.deck_update(deck=deck, name="Two")
    client.force_login(alice)
    url = reverse("deck-history", args=[deck.share_id]) + f"{number}/restore/"
    assert client.post(url).status_code == 404
    assert client.post(
        reverse("deck-history", args=[deck.share_id]) + "x/restore/"
    ).status_code == (404)
    assert fresh(deck).version == 2


def test_restore_takes_only_post(client, alice):
    deck = make_deck(alice)
    client.force_login(alice)
    assert client.get(restore_url(deck, 1)).status_code == 405
    assert client.post(history_url(deck)).status_code == 405


def test_history_and_restore_in_a_game_without_leaders_never_mention_a_leader(client, alice):
    game = Game.objects.get(slug="of-gods-and-men")
    assert not game.has_leaders
    first, second = Card.objects.filter(game=game).order_by("slug")[:2]
    deck = services.deck_create(
        owner=alice, game=game, name="Pantheon", contents={(first, "main"): 1}
    )
    services.deck_update(deck=deck, contents={(second, "main"): 2})
    client.force_login(alice)
    page = text_of(client.post(restore_url(deck, 1), follow=True))
    assert "Restored the cards and format of version 1 as version 3." in page
    assert f"+1 {first.name} −2 {second.name}" in page
    assert "leader" not in page.lower().replace("leader-based", "")
