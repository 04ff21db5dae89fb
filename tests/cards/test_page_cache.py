"""The pages' cache (cards.vocabulary): a game's vocabulary and the site's games, kept in each
process and in the shared cache under a version the database holds, and seen changed on the
very next request after any change."""

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services, vocabulary
from cards.models import (
    CardType,
    Colour,
    Game,
    GlossaryTerm,
    Keyword,
    Leader,
    Loyalty,
    Rarity,
    Stat,
)
from tests.html import text_of

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"


def game_page(client):
    return text_of(client.get(reverse("game-detail", kwargs={"game": GAME})))


def queries_of(client, url) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return [q["sql"] for q in ctx.captured_queries]


# --- where it is kept ---------------------------------------------------------------------


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_a_warm_process_reads_only_the_games_row_for_the_game_page(client, game):
    url = reverse("game-detail", kwargs={"game": GAME})
    client.get(url)
    [only] = queries_of(client, url)
    assert '"cards_game"' in only and "cards_colour" not in only


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_a_process_without_it_takes_the_vocabulary_and_games_from_the_shared_cache(
    client, game, settings
):
    url = reverse("game-detail", kwargs={"game": GAME})
    client.get(url)  # read from the database once, stored in the shared cache
    vocabulary.clear()  # another process: nothing of its own yet
    sql = queries_of(client, url)
    # the game's row, then the shared cache twice when it is a table (the default), not Redis
    in_table = settings.CACHES["default"]["BACKEND"].endswith("DatabaseCache")
    assert len(sql) == (3 if in_table else 1)
    assert all("django_cache" in q for q in sql[1:])
    assert not any('FROM "cards_colour"' in q or 'FROM "cards_keyword"' in q for q in sql)


def test_a_cold_cache_reads_the_vocabulary_from_the_database_once(client, game):
    url = reverse("game-detail", kwargs={"game": GAME})
    first = queries_of(client, url)
    assert any("cards_colour" in q for q in first) and any("cards_leader" in q for q in first)
    assert len(queries_of(client, url)) == 1


def test_the_vocabulary_equals_what_the_database_says(game):
    words = vocabulary.of(Game.objects.get(pk=game.pk))
    assert words.colours == list(game.colours.all())
    assert words.keywords == list(Keyword.objects.filter(game=game))
    assert words.formats == list(game.formats.all())
    for leader in Leader.objects.filter(game=game).for_rules():
        cached = words.leader(leader.pk)
        assert cached.info() == leader.info()
        assert list(cached.colours.all()) == list(leader.colours.all())
        assert list(cached.loyalties.all()) == list(leader.loyalties.all())


def test_a_game_row_reads_its_vocabulary_without_a_query_once_attached(
    game, django_assert_num_queries
):
    page_game = Game.objects.get(pk=game.pk)
    vocabulary.of(page_game)
    with django_assert_num_queries(0):
        colours = [c.slug for c in page_game.colour_list]
        types = page_game.type_list
        engine = page_game.default_format().engine()
        keywords = page_game.keyword_list
    assert colours == list(game.colours.values_list("slug", flat=True))
    assert types == list(game.card_types.all())
    assert engine == game.default_format().engine()
    assert keywords == list(Keyword.objects.filter(game=game))


def test_nothing_read_inside_a_transaction_of_our_own_is_kept(game):
    key = f"vocabulary:{game.pk}"
    with transaction.atomic():
        red = Colour.objects.get(game=game, slug="red")
        red.name = "Crimson"
        red.save()  # bumps rules_version, uncommitted
        fresh = Game.objects.get(pk=game.pk)
        assert "Crimson" in [c.name for c in vocabulary.of(fresh).colours]
        assert vocabulary._local == {}
        assert cache.get(vocabulary.shared_key(key, fresh.rules_version)) is None
        transaction.set_rollback(True)  # the next real change may get the same number
    again = Game.objects.get(pk=game.pk)
    assert "Crimson" not in [c.name for c in vocabulary.of(again).colours]


# --- every change is seen on the next request ---------------------------------------------


def rename(model, slug, name):
    def change(game):
        term = model.objects.get(game=game, slug=slug)
        term.name = name
        term.save()

    return change


def make_faction(game):
    keyword = Keyword.objects.get(game=game, name="Plant")
    keyword.is_faction = True
    keyword.save()


def rename_format(game):
    services.save_format(game=game, data={**game.default_format().as_data(), "name": "Grand"})


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        (rename(Colour, "red", "Crimson"), "Crimson"),
        (rename(Rarity, "rare", "Precious"), "Precious"),
        (rename(CardType, "god-card", "Miracle"), "Miracle"),
        (lambda game: Stat.objects.create(game=game, slug="valour", name="Valour"), "Valour"),
        (rename_format, "Grand"),
        (make_faction, "Plant"),
    ],
    ids=["colour", "rarity", "card type", "stat", "format", "faction"],
)
def test_a_vocabulary_change_shows_on_the_next_game_page(client, game, change, shown):
    assert shown not in game_page(client)
    change(game)
    assert shown in game_page(client)


def rename_leader(game):
    leader = Leader.objects.get(game=game, slug="kellantra")
    services.save_leader(
        game=game,
        fields={"name": "Kellantra the Wise"},
        colours=list(leader.colours.all()),
        keywords=[k.name for k in leader.keywords.all()],
        leader=leader,
    )


def paint_leader(game):
    Leader.objects.get(game=game, slug="richard").colours.add(
        Colour.objects.get(game=game, slug="black")
    )


def give_loyalty(game):
    Loyalty.objects.create(
        leader=Leader.objects.get(game=game, slug="kellantra"),
        faction=Keyword.objects.get(game=game, name="Keld"),
        points=2,
    )


def rename_keyword(game):
    keyword = Keyword.objects.get(game=game, name="Druid")
    keyword.name = "Sage"
    keyword.save()


@pytest.mark.parametrize(
    ("change", "page", "shown"),
    [
        (rename_leader, "leader-list", "Kellantra the Wise"),
        (paint_leader, "leader-list", "Colours: ☀ Yellow ☠ Black"),
        (give_loyalty, "leader-list", "Loyalty: ⚑ Keld 2"),
        (rename_keyword, "leader-detail", "Sage"),
        (rename_leader, "card-detail", "Kellantra the Wise"),
    ],
    ids=["leader name", "leader colours", "loyalty", "keyword", "leaders of a card"],
)
def test_a_leader_change_shows_on_the_next_request(client, game, change, page, shown):
    kwargs = {"game": GAME}
    if page == "leader-detail":
        kwargs["slug"] = "kellantra"
    elif page == "card-detail":
        kwargs["slug"] = "quiet-prayer"
    url = reverse(page, kwargs=kwargs)
    assert shown not in text_of(client.get(url))
    change(game)
    assert shown in text_of(client.get(url))


def test_a_glossary_change_shows_on_the_next_card_page(client, sample_rules):
    url = reverse("card-detail", kwargs={"game": GAME, "slug": "despair"})
    html = client.get(url).content.decode()
    term = GlossaryTerm.objects.get(game=sample_rules, term__iexact="Attack")
    assert 'class="term"' in html and "Brand new words." not in html
    term.definition = "Brand new words."
    term.save()
    assert "Brand new words." in client.get(url).content.decode()


def test_a_rules_text_rendered_again_bumps_the_version_when_a_definition_changed(
    sample_rules,
):
    GlossaryTerm.objects.filter(game=sample_rules).update(definition_html="stale")
    before = Game.objects.get(pk=sample_rules.pk).rules_version
    assert services.rerender_sections(game=sample_rules)
    assert Game.objects.get(pk=sample_rules.pk).rules_version > before


# --- the site's games ---------------------------------------------------------------------


def nav_names(client) -> list[str]:
    return [
        g.name for g in client.get(reverse("card-list", kwargs={"game": GAME})).context["nav_games"]
    ]


def games_version() -> str:
    return Game.objects.annotate(v=vocabulary.games_version()).values_list("v", flat=True)[0]


def test_saving_a_game_read_before_other_changes_still_moves_its_version_forward(game):
    stale = Game.objects.get(pk=game.pk)
    rename(Colour, "red", "Crimson")(game)  # a bump the stale instance does not know
    bumped = Game.objects.get(pk=game.pk).rules_version
    stale.description = "Edited."
    stale.save()
    assert Game.objects.get(pk=game.pk).rules_version == bumped + 1


def test_the_games_version_moves_when_a_game_is_added_renamed_or_removed(game):
    start = games_version()
    assert games_version() == start  # nothing changed: the same
    other = Game.objects.create(slug="new-game", name="New Game")
    added = games_version()
    other.name = "Newer Game"
    other.save()
    renamed = games_version()
    other.delete()
    removed = games_version()
    assert start != added != renamed != removed
    assert removed == start  # the same games as at the start, unchanged: the same list


@pytest.mark.usefixtures("uncached")  # the page's own queries
def test_the_navigation_shows_a_game_added_renamed_or_removed_on_the_next_request(client, game):
    before = nav_names(client)
    assert "Card of Gods" in before and "New Game" not in before
    other = Game.objects.create(slug="new-game", name="New Game")
    assert "New Game" in nav_names(client)
    game.name = "Cards of the Gods"
    game.save()
    names = nav_names(client)
    assert "Cards of the Gods" in names and "Card of Gods" not in names
    other.delete()
    assert "New Game" not in nav_names(client)
    assert nav_names(client) == sorted(nav_names(client))


def test_a_page_that_read_its_game_reads_no_games_for_the_navigation(client, game):
    url = reverse("card-list", kwargs={"game": GAME})
    client.get(url)
    assert not any('FROM "cards_game" ORDER BY' in q for q in queries_of(client, url))
