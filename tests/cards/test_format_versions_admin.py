"""Versions of a format in the admin ("Formats over time", point 1): listed on the format's
page, a new one copied from the current one, every save previewed first (how many public decks
and how many of each owner's decks it makes illegal) and saved only when confirmed; the decks
judged again when one is saved or deleted; a format's last version kept."""

import datetime
import json
import re

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cards.models import Format, FormatVersion
from deckbuilder import services
from deckbuilder.models import Deck, DeckVerdict, Visibility
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("plain_static_files")]

# Two legal Card of Gods decks for Gottfried: one with Despair (banned in the tests' new
# versions), one without.
WITH_DESPAIR = {"despair": 3, "lightning": 3, "fiery-earth": 2, "punishment": 1, "blood-pact": 1}
WITHOUT_DESPAIR = {"quiet-prayer": 3, "lightning": 3, "fiery-earth": 2, "punishment": 1}
WITHOUT_DESPAIR["blood-pact"] = 1
NO_DESPAIR = {"despair": 0}


def version_form(version: FormatVersion, **changes) -> dict:
    """The version's admin form as a browser posts it, with `changes`."""
    data = {
        "format": version.format_id,
        "starts": version.starts.isoformat() if version.starts else "",
        "name": version.name,
        "sections": json.dumps(version.sections),
        "rules": json.dumps(version.rules),
        "banlist": json.dumps(version.banlist),
        "notes": version.notes,
    }
    data.update(changes)
    return data


def previewed(response) -> str:
    """The digest of the data previewed, in the hidden field the page sends back."""
    found = re.search(r'name="previewed" value="([0-9a-f]+)"', response.content.decode())
    assert found, "no preview on the page"
    return found[1]


def save_version(client, url: str, data: dict):
    """Post a version's form, then confirm what was previewed: (preview page, answer)."""
    preview = client.post(url, data)
    assert preview.status_code == 200, preview
    answer = client.post(url, {**data, "confirm": "on", "previewed": previewed(preview)})
    return preview, answer


def non_field_errors(response) -> str:
    return " ".join(response.context["adminform"].form.non_field_errors())


def make_deck(game, owner, counts, visibility=Visibility.PUBLIC, name="Gottfried ten"):
    return factories.deck(owner, game, counts, visibility=visibility, name=name)


def legal_now(deck) -> bool:
    return Deck.objects.for_display().get(pk=deck.pk).legal


def standard(game) -> Format:
    return game.formats.get(slug="standard")


def yesterday() -> datetime.date:
    return timezone.localdate() - datetime.timedelta(days=1)


ADD = reverse("admin:cards_formatversion_add")


def change_url(version) -> str:
    return reverse("admin:cards_formatversion_change", args=[version.pk])


@pytest.fixture
def decks(game, alice, bob):
    """alice: a public and a private deck with Despair, a public one without, a private one
    illegal already; bob: a public deck with Despair."""
    made = {
        "alice public": make_deck(game, alice, WITH_DESPAIR),
        "alice private": make_deck(game, alice, WITH_DESPAIR, Visibility.PRIVATE),
        "alice without": make_deck(game, alice, WITHOUT_DESPAIR),
        "alice illegal": make_deck(game, alice, {"despair": 2}, Visibility.PRIVATE),
        "bob public": make_deck(game, bob, WITH_DESPAIR),
    }
    assert [legal_now(d) for d in made.values()] == [True, True, True, False, True]
    return made


# --- the format's page ----------------------------------------------------------------------


def test_admin_format_page_lists_its_versions_and_links_a_copy_of_the_current_one(
    staff_client, game
):
    fmt = standard(game)
    current = fmt.current
    later = FormatVersion.objects.create(
        format=fmt, starts=timezone.localdate() + datetime.timedelta(days=30), name="Next season"
    )

    page = staff_client.get(reverse("admin:cards_format_change", args=[fmt.pk])).content.decode()

    for version in (current, later):
        assert version.name in page
        assert change_url(version) in page
    assert f'{ADD}?copy={current.pk}">New version from the current one' in page
    for gone in ('name="sections"', 'name="rules"', 'name="banlist"'):
        assert gone not in page  # they are the versions'


def test_admin_format_page_saves_its_own_fields_and_leaves_its_versions(staff_client, game):
    fmt = standard(game)
    versions = [v.as_data() for v in fmt.version_list]
    data = {"name": "Standard play", "slug": fmt.slug, "is_default": "on", "position": 0}
    data["hand_size"] = 4
    # The read-only list of versions, as the page sends it back.
    data.update({"versions-TOTAL_FORMS": len(versions), "versions-INITIAL_FORMS": len(versions)})
    for number, version in enumerate(fmt.version_list):
        data.update({f"versions-{number}-id": version.pk, f"versions-{number}-format": fmt.pk})
    saved = []
    post_save.connect(
        lambda instance, **kwargs: saved.append(instance),
        sender=FormatVersion,
        weak=False,
        dispatch_uid="test-saved",
    )

    try:
        response = staff_client.post(reverse("admin:cards_format_change", args=[fmt.pk]), data)
    finally:
        post_save.disconnect(sender=FormatVersion, dispatch_uid="test-saved")

    assert response.status_code == 302
    fmt = standard(game)
    assert (fmt.name, fmt.hand_size) == ("Standard play", 4)
    assert [v.as_data() for v in fmt.version_list] == versions
    assert saved == []  # no version saved again (its decks are not judged again for nothing)


def test_admin_adding_a_format_gives_it_a_first_version_and_opens_it(staff_client, game):
    response = staff_client.post(
        reverse("admin:cards_format_add"),
        {
            "game": game.pk,
            "name": "Highlander",
            "slug": "highlander",
            "position": 2,
            "hand_size": 5,
        },
    )

    fmt = game.formats.get(slug="highlander")
    [first] = fmt.versions.all()
    assert (first.starts, first.name, first.rules) == (None, "Highlander", [])
    assert first.sections == [{"slug": "main", "name": "Deck"}]
    assert response.status_code == 302 and response.url == change_url(first)


# --- a new version, copied --------------------------------------------------------------------


def test_admin_copy_of_the_current_version_starts_from_its_rules(staff_client, game):
    current = standard(game).current
    current.banlist, current.notes = {"healing": 1}, "As printed."
    current.save()

    response = staff_client.get(f"{ADD}?copy={current.pk}")

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert form["format"].value() == current.format_id
    assert form["name"].value() == current.name
    assert json.loads(form["sections"].value()) == current.sections
    assert json.loads(form["rules"].value()) == current.rules
    assert json.loads(form["banlist"].value()) == {"healing": 1}
    assert form["notes"].value() == "As printed."
    assert form["starts"].value() in (None, "")  # the curator gives the date


def test_admin_versions_list_filters_by_game(staff_client, game):
    response = staff_client.get(
        reverse("admin:cards_formatversion_changelist"), {"format__game__id__exact": game.pk}
    )

    shown = list(response.context["cl"].result_list)
    assert shown and {v.format.game_id for v in shown} == {game.pk}


# --- the preview before saving --------------------------------------------------------------


def test_admin_preview_counts_public_and_each_owners_decks_made_illegal_and_saves_nothing(
    staff_client, game, decks
):
    current = standard(game).current
    versions = list(FormatVersion.objects.filter(format__game=game))
    verdicts = set(DeckVerdict.objects.values_list("deck", "version", "legal"))
    data = version_form(current, starts=yesterday().isoformat(), name="No Despair")
    data["banlist"] = json.dumps(NO_DESPAIR)

    response = staff_client.post(ADD, data)

    assert response.status_code == 200
    assert (
        "This version makes 2 public decks illegal; by owner: alice 2, bob 1 "
        "(4 decks of Standard legal now judged under it)." in non_field_errors(response)
    )
    assert "Nothing is saved yet" in response.content.decode()
    assert list(FormatVersion.objects.filter(format__game=game)) == versions
    assert set(DeckVerdict.objects.values_list("deck", "version", "legal")) == verdicts


def test_admin_preview_of_a_change_that_makes_no_deck_illegal_says_so(staff_client, game, decks):
    current = standard(game).current

    response = staff_client.post(change_url(current), version_form(current, notes="Reworded."))

    said = "This version makes no deck illegal (4 decks of Standard legal now judged under it)."
    assert said in non_field_errors(response)
    current.refresh_from_db()
    assert current.notes != "Reworded."


def test_admin_saves_only_the_data_that_was_previewed_and_confirmed(staff_client, game, decks):
    current = standard(game).current
    data = version_form(current, starts=yesterday().isoformat(), name="No Despair")
    data["banlist"] = json.dumps(NO_DESPAIR)

    # "Save it" ticked at once: previewed first all the same.
    first = staff_client.post(ADD, {**data, "confirm": "on"})
    assert "makes 2 public decks illegal" in non_field_errors(first)
    # Changed after the preview: previewed again, for the new data.
    changed = {**data, "banlist": "{}", "confirm": "on", "previewed": previewed(first)}
    second = staff_client.post(ADD, changed)
    assert "makes no deck illegal" in non_field_errors(second)
    assert previewed(second) != previewed(first)
    assert not FormatVersion.objects.filter(name="No Despair").exists()
    # Confirmed as previewed: saved.
    third = staff_client.post(ADD, {**changed, "previewed": previewed(second)})
    assert third.status_code == 302
    assert FormatVersion.objects.get(name="No Despair").banlist == {}


def test_admin_confirmed_version_in_the_past_changes_the_verdicts_of_its_decks(
    staff_client, game, decks
):
    current = standard(game).current
    before = current.as_data()
    data = version_form(current, starts=yesterday().isoformat(), name="No Despair")
    data["banlist"] = json.dumps(NO_DESPAIR)

    _, answer = save_version(staff_client, ADD, data)

    assert answer.status_code == 302
    new = standard(game).versions.get(name="No Despair")
    assert (new.starts, new.banlist) == (yesterday(), NO_DESPAIR)
    assert {name: legal_now(deck) for name, deck in decks.items()} == {
        "alice public": False,
        "alice private": False,
        "alice without": True,
        "alice illegal": False,
        "bob public": False,
    }
    # The version before stays what it was (it judged decks until yesterday).
    assert FormatVersion.objects.get(pk=current.pk).as_data() == before


def test_admin_confirmed_change_of_the_current_version_judges_its_decks_again(
    staff_client, game, decks
):
    current = standard(game).current

    _, answer = save_version(
        staff_client, change_url(current), version_form(current, banlist=json.dumps(NO_DESPAIR))
    )

    assert answer.status_code == 302
    assert not legal_now(decks["bob public"]) and legal_now(decks["alice without"])


def test_admin_refuses_a_bad_rule_in_a_version_with_the_reason(staff_client, game, decks):
    current = standard(game).current
    bad = [*current.rules, {"rule": "deck_size", "min": 12, "max": 10}]

    response = staff_client.post(change_url(current), version_form(current, rules=json.dumps(bad)))

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "more than max" in " ".join(errors["rules"])
    assert "more than max" in response.content.decode()
    assert non_field_errors(response) == ""  # no preview of a version that cannot be saved
    current.refresh_from_db()
    assert current.rules == bad[:-1]


def test_admin_refuses_a_copy_left_without_its_own_start_date(staff_client, game):
    """Standard has a version from the beginning and one from 1 June 2026."""
    current = standard(game).current
    before = standard(game).versions.count()

    for starts, reason in [
        ("", "Only one version can be in force from the beginning."),
        (current.starts.isoformat(), "Format version with this Format and In force from already"),
    ]:
        response = staff_client.post(ADD, version_form(current, starts=starts, name="Copy"))
        assert response.status_code == 200
        assert reason in response.content.decode()
    assert standard(game).versions.count() == before


def test_admin_preview_reads_the_decks_in_a_constant_number_of_queries(game, alice, bob):
    version = FormatVersion(format=standard(game), starts=yesterday(), name="x", banlist=NO_DESPAIR)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            services.version_impact(version=version)
        return len(captured)

    make_deck(game, alice, WITH_DESPAIR)
    one = queries()
    for owner in (alice, bob, bob):
        make_deck(game, owner, WITHOUT_DESPAIR)
    assert queries() == one
    assert services.version_impact(version=version) == (4, 1, {"alice": 1})


# --- deleting a version ---------------------------------------------------------------------


def test_admin_deleting_a_version_judges_its_decks_again(staff_client, game, decks):
    fmt = standard(game)
    banned = FormatVersion.objects.create(
        format=fmt, starts=yesterday(), name="No Despair", sections=fmt.sections, banlist=NO_DESPAIR
    )
    assert not legal_now(decks["bob public"])

    response = staff_client.post(
        reverse("admin:cards_formatversion_delete", args=[banned.pk]), {"post": "yes"}
    )

    assert response.status_code == 302
    assert not FormatVersion.objects.filter(pk=banned.pk).exists()
    assert legal_now(decks["bob public"])


def test_admin_cannot_delete_a_formats_last_version(staff_client, game):
    first, only = standard(game).versions.all()
    delete = reverse("admin:cards_formatversion_delete", args=[first.pk])
    assert staff_client.post(delete, {"post": "yes"}).status_code == 302  # another is left
    assert list(standard(game).versions.all()) == [only]
    url = reverse("admin:cards_formatversion_delete", args=[only.pk])

    for response in (staff_client.get(url), staff_client.post(url, {"post": "yes"})):
        assert response.status_code == 302 and response.url == change_url(only)
        said = [str(m) for m in get_messages(response.wsgi_request)]
        assert "is the only version of Standard, and a format always has one" in said[-1]
    assert FormatVersion.objects.filter(pk=only.pk).exists()
    # Nor in bulk: versions are deleted one at a time.
    listing = staff_client.get(reverse("admin:cards_formatversion_changelist"))
    model_admin = listing.context["cl"].model_admin
    assert "delete_selected" not in model_admin.get_actions(listing.wsgi_request)
