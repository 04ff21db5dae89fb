"""The Django admin of the reference data, and its import and export pages."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards.admin import FactionListFilter
from cards.models import Card, Colour, Game, Keyword, Leader, Rarity
from cards.text import MAX_DEPTH

pytestmark = pytest.mark.usefixtures("plain_static_files")


def upload(document, name="cards.json") -> SimpleUploadedFile:
    content = document if isinstance(document, bytes) else json.dumps(document).encode()
    return SimpleUploadedFile(name, content)


# --- changelists and change forms -----------------------------------------------------------


@pytest.mark.parametrize("model", [Game, Keyword, Card, Leader])
def test_staff_can_open_every_changelist_and_add_form(staff_client, model):
    opts = model._meta
    changelist = staff_client.get(reverse(f"admin:cards_{opts.model_name}_changelist"))
    assert changelist.status_code == 200
    add = staff_client.get(reverse(f"admin:cards_{opts.model_name}_add"))
    assert add.status_code == 200


@pytest.mark.parametrize(
    ("model", "lookup"),
    [
        (Game, {"slug": "card-of-gods"}),
        (Keyword, {"name": "Keld"}),
        (Card, {"slug": "blood-pact"}),
        (Leader, {"slug": "gottfried"}),
    ],
)
def test_staff_can_open_every_change_form(staff_client, game, model, lookup):
    obj = model.objects.get(**lookup)
    response = staff_client.get(
        reverse(f"admin:cards_{model._meta.model_name}_change", args=[obj.pk])
    )
    assert response.status_code == 200


def test_admin_index_lists_the_reference_data_for_staff(staff_client):
    content = staff_client.get(reverse("admin:index")).content.decode()
    for model in ["game", "keyword", "card", "leader"]:
        assert reverse(f"admin:cards_{model}_changelist") in content


def test_card_change_form_shows_the_derived_colours_and_total_cost(staff_client, game):
    card = Card.objects.get(slug="blood-pact")
    response = staff_client.get(reverse("admin:cards_card_change", args=[card.pk]))
    content = response.content.decode()
    assert "☀ Yellow, ✹ Red, ☠ Black" in content
    assert '<div class="readonly">3</div>' in content


def test_game_change_form_edits_formats_and_vocabulary_inline(staff_client, game):
    response = staff_client.get(reverse("admin:cards_game_change", args=[game.pk]))
    formsets = [f.formset.prefix for f in response.context["inline_admin_formsets"]]
    assert formsets == ["formats", "card_types", "colours", "rarities", "stats"]


def test_non_staff_users_are_sent_to_the_login_page(client, alice):
    client.force_login(alice)
    for url in [
        reverse("admin:cards_card_changelist"),
        reverse("admin:cards_card_import"),
        reverse("admin:cards_card_export"),
    ]:
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))


# --- search and filters ---------------------------------------------------------------------


def changelist_names(client, model="card", **params):
    response = client.get(reverse(f"admin:cards_{model}_changelist"), params)
    assert response.status_code == 200
    return sorted(str(o) for o in response.context["cl"].result_list)


def test_card_search_looks_in_name_and_text(staff_client, game):
    assert changelist_names(staff_client, q="lightning") == ["Lightning"]
    assert changelist_names(staff_client, q="sapling") == ["Plant A Seed"]  # in its text


def test_card_list_filters(staff_client, game):
    red = Colour.objects.get(game=game, slug="red")
    rare = Rarity.objects.get(game=game, slug="rare")
    keld = Keyword.objects.get(game=game, name="Keld")
    assert changelist_names(staff_client, colours__id__exact=red.pk) == [
        "Blood Pact",
        "Fiery Earth",
        "Lightning",
    ]
    assert changelist_names(staff_client, rarity__id__exact=rare.pk) == [
        "Blood Pact",
        "Hymn of Engeln",
        "Punishment",
    ]
    assert changelist_names(staff_client, faction=keld.pk) == ["Plant A Seed"]
    assert changelist_names(staff_client, makes_attack__exact=1) == ["Despair", "Lightning"]
    assert len(changelist_names(staff_client, game__id__exact=game.pk)) == 9


def faction_choices(client, **params) -> set[str]:
    response = client.get(reverse("admin:cards_card_changelist"), params)
    faction_filter = next(
        f for f in response.context["cl"].filter_specs if isinstance(f, FactionListFilter)
    )
    return {label for _, label in faction_filter.lookup_choices}


def test_faction_filter_lists_only_faction_keywords(staff_client, game):
    names = faction_choices(staff_client, game__id__exact=game.pk)
    assert "Keld" in names and "Engeln" in names
    assert "Plant" not in names and "Knight" not in names
    assert "Loyalists" not in names  # a faction of another game


def test_faction_filter_names_the_game_of_each_faction_when_no_game_is_chosen(staff_client, game):
    names = faction_choices(staff_client)
    assert {"Keld (Card of Gods)", "Loyalists (Irdya card game)"} <= names
    assert not any(name.startswith(("Plant", "Knight")) for name in names)


def test_leader_search_and_filters(staff_client, game):
    yellow = Colour.objects.get(game=game, slug="yellow")
    kriegmark = Keyword.objects.get(game=game, name="Kriegmark")
    assert changelist_names(staff_client, "leader", q="kell") == ["Kellantra"]
    assert changelist_names(staff_client, "leader", colours__id__exact=yellow.pk) == [
        "Gottfried",
        "Richard",
    ]
    assert changelist_names(staff_client, "leader", faction=kriegmark.pk) == ["Gottfried"]


def test_card_changelist_queries_do_not_grow_with_the_number_of_cards(staff_client, game):
    url = reverse("admin:cards_card_changelist")
    staff_client.get(url)  # warm up (session, content types)
    with CaptureQueriesContext(connection) as few:
        staff_client.get(url)
    rarity = Rarity.objects.get(game=game, slug="common")
    for n in range(10):
        card = Card.objects.create(
            game=game, name=f"Extra {n}", rarity=rarity, cost={"life": 1, "death": 1}
        )
        card.keywords.set(Keyword.objects.filter(game=game, name="Keld"))
    with CaptureQueriesContext(connection) as many:
        staff_client.get(url)
    assert len(many) == len(few)


# --- card form validation -------------------------------------------------------------------


def card_form_data(game, **overrides):
    data = {
        "game": game.pk,
        "name": "Ember",
        "slug": "ember",
        "type": game.card_types.get(slug="god-card").pk,
        "rarity": Rarity.objects.get(game=game, slug="common").pk,
        "cost": '{"destruction": 1}',
        "stats": "{}",
        "condition": "",
        "text": "",
        "flavour": "",
        "effect_source": "",
        "image": "",
    }
    return {**data, **overrides}


def test_admin_adds_a_card_and_derives_its_colours(staff_client, game):
    response = staff_client.post(reverse("admin:cards_card_add"), card_form_data(game))
    assert response.status_code == 302
    card = Card.objects.get(game=game, slug="ember")
    assert [c.slug for c in card.colours.all()] == ["red"]
    assert card.total_cost == 1


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"cost": '{"air": 1}'}, "cost", "Unknown domain"),
        ({"cost": '{"life": "two"}'}, "cost", "whole number"),
        ({"name": "HEALING", "slug": "healing-2"}, "name", "already exists"),
    ],
)
def test_admin_card_form_rejects_bad_cards(staff_client, game, overrides, field, message):
    response = staff_client.post(reverse("admin:cards_card_add"), card_form_data(game, **overrides))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert message in " ".join(errors[field])
    assert not Card.objects.filter(slug=overrides.get("slug", "ember")).exists()


def test_admin_card_form_rejects_a_keyword_of_another_game(staff_client, game):
    other = Game.objects.create(slug="other", name="Other")
    foreign = Keyword.objects.create(game=other, name="Alien")
    response = staff_client.post(
        reverse("admin:cards_card_add"), card_form_data(game, keywords=[foreign.pk])
    )
    assert response.status_code == 200
    assert "Alien" in " ".join(response.context["adminform"].form.errors["keywords"])


# --- import and export pages ----------------------------------------------------------------


GOOD = {
    "game": "card-of-gods",
    "cards": [
        {"name": "Ember", "rarity": "common", "cost": {"destruction": 1}},
        {"slug": "healing", "name": "Healing", "rarity": "rare", "cost": {"life": 3}},
    ],
}


def test_card_changelist_links_to_import_and_export(staff_client, game):
    content = staff_client.get(reverse("admin:cards_card_changelist")).content.decode()
    assert reverse("admin:cards_card_import") in content
    assert reverse("admin:cards_card_export") in content


def test_import_page_dry_run_reports_and_writes_nothing(staff_client, game):
    response = staff_client.post(
        reverse("admin:cards_card_import"), {"file": upload(GOOD), "dry_run": "on"}
    )
    assert response.status_code == 200
    report = response.context["report"]
    assert (report.created, report.updated, report.errors) == (1, 1, [])
    assert "Dry run" in response.content.decode()
    assert not Card.objects.filter(slug="ember").exists()
    assert Card.objects.get(slug="healing").rarity.slug == "uncommon"


def test_import_page_dry_run_of_a_clean_file_says_the_file_is_good(staff_client, game):
    content = staff_client.post(
        reverse("admin:cards_card_import"), {"file": upload(GOOD), "dry_run": "on"}
    ).content.decode()
    assert "Dry run: the file is good" in content
    assert "new keyword" not in content


def test_import_page_dry_run_names_the_keywords_the_file_would_create(staff_client, game):
    document = {
        "game": "card-of-gods",
        "cards": [
            {"name": "Ember", "rarity": "common", "keywords": ["Ritul", "Plant"]},
            {"name": "Ash", "rarity": "common", "keywords": ["Shiled"]},
        ],
    }
    response = staff_client.post(
        reverse("admin:cards_card_import"), {"file": upload(document), "dry_run": "on"}
    )
    content = response.content.decode()
    assert "the file is good" not in content
    assert "Dry run: the file can be imported" in content
    assert "It would create 2 new keywords: Ritul, Shiled — check their spelling." in content
    assert not Keyword.objects.filter(game=game, name__in=["Ritul", "Shiled"]).exists()


def test_import_page_real_import_writes_and_returns_to_the_card_list(staff_client, game):
    response = staff_client.post(reverse("admin:cards_card_import"), {"file": upload(GOOD)})
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:cards_card_changelist")
    assert Card.objects.filter(game=game, slug="ember").exists()
    assert Card.objects.get(slug="healing").rarity.slug == "rare"


def test_import_page_shows_each_bad_row_and_writes_nothing(staff_client, game):
    csv = (
        b"type,name,rarity,cost\n"
        b"card,Ember,common,destruction:1\n"
        b"card,Gust,common,air:1\n"
        b"leader,Nobody,,\n"
        b"card,,common,\n"
    )
    response = staff_client.post(
        reverse("admin:cards_card_import"),
        {"file": upload(csv, "cards.csv"), "game": "card-of-gods"},
    )
    assert response.status_code == 200
    errors = [(e.row, e.field) for e in response.context["report"].errors]
    assert errors == [(3, "cost"), (5, "name")]
    content = response.content.decode()
    assert "Unknown domain" in content and content.count('class="import-error"') == 2
    assert not Card.objects.filter(slug="ember").exists()
    assert not Leader.objects.filter(slug="nobody").exists()


# Files json.loads refuses with other errors than JSONDecodeError, and the form error of each.
HUGE_NUMBER = b'{"game": "card-of-gods", "cards": [{"name": "Ember", "rarity": "common", "cost": '
HUGE_NUMBER += b'{"destruction": ' + b"9" * 5000 + b"}}]}"
UNREADABLE_JSON = [
    pytest.param(b"[" * 100_000, f"The file is nested deeper than {MAX_DEPTH} levels.", id="deep"),
    pytest.param(HUGE_NUMBER, "A number in the file has more than 4300 digits.", id="long"),
]


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "import"])
@pytest.mark.parametrize(("content", "message"), UNREADABLE_JSON)
def test_import_page_shows_a_form_error_for_json_too_deep_or_with_a_huge_number(
    staff_client, game, content, message, dry_run
):
    staff_client.raise_request_exception = False
    form = {"file": upload(content), **({"dry_run": "on"} if dry_run else {})}
    response = staff_client.post(reverse("admin:cards_card_import"), form)
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [message]
    assert response.context["report"] is None
    assert message in response.content.decode()
    assert not Card.objects.filter(slug="ember").exists()


def test_import_page_asks_for_the_game_of_a_csv_file_without_one(staff_client, game):
    csv = b"type,name,rarity\ncard,Ember,common\n"
    response = staff_client.post(
        reverse("admin:cards_card_import"), {"file": upload(csv, "cards.csv")}
    )
    assert response.status_code == 200
    assert "Name the game" in response.content.decode()
    assert not Card.objects.filter(slug="ember").exists()


def test_export_page_lists_downloads_per_game(staff_client, game):
    response = staff_client.get(reverse("admin:cards_card_export"))
    content = response.content.decode()
    assert reverse("admin:cards_card_export_file", args=["card-of-gods", "json"]) in content
    assert reverse("admin:cards_card_export_file", args=["card-of-gods", "csv"]) in content


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_download_is_a_file_the_import_page_reads_back(staff_client, game, fmt):
    response = staff_client.get(reverse("admin:cards_card_export_file", args=["card-of-gods", fmt]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="card-of-gods.{fmt}"'
    Card.objects.filter(slug="healing").update(text="changed")

    back = staff_client.post(
        reverse("admin:cards_card_import"),
        {"file": upload(response.content, f"card-of-gods.{fmt}")},
    )

    assert back.status_code == 302
    assert Card.objects.get(slug="healing").text == "Heal all lost wounds of the target."


def test_export_of_an_unknown_game_is_404(staff_client, db):
    url = reverse("admin:cards_card_export_file", args=["nope", "json"])
    assert staff_client.get(url).status_code == 404


def test_import_report_is_plain_text_safe(staff_client, game):
    evil = {"game": "card-of-gods", "cards": [{"name": "X", "rarity": "<script>x</script>"}]}
    content = staff_client.post(
        reverse("admin:cards_card_import"), {"file": upload(evil), "dry_run": "on"}
    ).content.decode()
    assert "&lt;script&gt;x" in content
    assert "<script>x" not in content
