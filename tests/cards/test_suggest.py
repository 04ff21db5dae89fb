"""The suggestions endpoint: <option> elements of a game's card, keyword or leader names for a
<datalist> (htmx swaps them in as the player types). Names starting with the text come first,
then names holding it; at most 12; cacheable; two queries whatever the number of names."""

import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards import services
from cards.views import SUGGESTIONS

GAME = "card-of-gods"


def suggest(client, kind, game=GAME, **params):
    return client.get(reverse("suggest", kwargs={"game": game, "kind": kind}), params)


def options(response) -> list[str]:
    assert response.status_code == 200, response.content
    html = response.content.decode()
    found = re.findall(r'<option value="([^"]*)">', html)
    # nothing else than the options (and white space) in the answer
    assert re.sub(r'<option value="[^"]*">', "", html).strip() == ""
    return [unescape(name) for name in found]


def card(game, name, keywords=()):
    return services.save_card(
        game=game,
        fields={"name": name, "rarity": game.rarities.first(), "cost": {"life": 1}},
        keywords=list(keywords),
    )


def test_url_and_content_type(client, game):
    assert reverse("suggest", kwargs={"game": GAME, "kind": "cards"}) == (
        "/games/card-of-gods/suggest/cards/"
    )
    response = suggest(client, "cards", q="heal")
    assert response["Content-Type"].startswith("text/html")
    assert options(response) == ["Healing"]


def test_names_starting_with_the_text_come_before_names_holding_it(client, game):
    card(game, "Seed Bomb")
    card(game, "Seedling")
    # alphabetically "Plant A Seed" would come first: it holds "seed" but does not start with it
    assert options(suggest(client, "cards", q="seed")) == ["Seed Bomb", "Seedling", "Plant A Seed"]
    assert options(suggest(client, "cards", q="SEED")) == ["Seed Bomb", "Seedling", "Plant A Seed"]
    assert options(suggest(client, "cards", q="  seed ")) == [
        "Seed Bomb",
        "Seedling",
        "Plant A Seed",
    ]


def test_at_most_12_prefix_matches_first(client, game):
    for i in range(15):
        card(game, f"Zap {i:02d}")
    card(game, "Big Zap")  # holds the text: after every name starting with it, so cut off
    found = options(suggest(client, "cards", q="zap"))
    assert SUGGESTIONS == 12
    assert found == [f"Zap {i:02d}" for i in range(12)]


def test_substring_matches_fill_up_to_the_limit(client, game):
    for i in range(3):
        card(game, f"Zap {i}")
    card(game, "Big Zap")
    assert options(suggest(client, "cards", q="zap")) == ["Zap 0", "Zap 1", "Zap 2", "Big Zap"]


def test_empty_text_gives_the_first_12_names(client, game):
    for i in range(10):
        card(game, f"Aaa {i}")
    found = options(suggest(client, "cards"))
    assert len(found) == 12
    assert found == sorted(found)
    assert found[:10] == [f"Aaa {i}" for i in range(10)]
    assert found[10:] == ["Blood Pact", "Despair"]
    assert options(suggest(client, "cards", q="")) == found


def test_keywords_and_leaders(client, game):
    assert options(suggest(client, "keywords", q="k")) == ["Keld", "Knight", "Kriegmark"]
    assert options(suggest(client, "keywords", q="hope")) == ["Priory of Hope"]
    assert options(suggest(client, "leaders", q="r")) == ["Richard", "Gottfried", "Kellantra"]
    assert options(suggest(client, "leaders")) == ["Gottfried", "Kellantra", "Richard"]


def test_only_the_games_own_names(client, game):
    assert options(suggest(client, "cards", q="bark")) == []  # Barkskin Mantle: Berserk's
    assert options(suggest(client, "cards", game="berserk-heroes", q="bark")) == ["Barkskin Mantle"]


def test_an_input_named_after_its_filter_sends_its_text_under_that_name(client, game):
    """The keyword filter's box keeps its name ("keyword"): without `q`, its value counts."""
    assert options(suggest(client, "keywords", keyword="prio")) == ["Priory of Hope"]
    assert options(suggest(client, "leaders", q="", leader="kel")) == ["Kellantra"]
    assert options(suggest(client, "leaders", q="rich", leader="kel")) == ["Richard"]


def test_names_are_escaped(client, game):
    card(game, 'Fire & "Ice" <b>')
    html = suggest(client, "cards", q="fire").content.decode()
    assert '<option value="Fire &amp; &quot;Ice&quot; &lt;b&gt;">' in html
    assert "<b>" not in html


@pytest.mark.parametrize(
    ("slug", "kind"),
    [
        (GAME, "spells"),
        (GAME, "card"),
        ("no-such-game", "cards"),
        ("no-such-game", "keywords"),
    ],
)
def test_unknown_kind_or_game_is_404(client, game, slug, kind):
    assert suggest(client, kind, game=slug, q="a").status_code == 404


def test_too_long_a_text_is_a_400_that_says_so(client, game):
    response = suggest(client, "cards", q="x" * 201)
    assert response.status_code == 400
    assert b"too long" in response.content


def test_answers_can_be_cached_by_anyone_for_5_minutes(client, game):
    response = suggest(client, "keywords", q="k")
    directives = {d.strip() for d in response["Cache-Control"].split(",")}
    assert {"public", "max-age=300"} <= directives
    assert "private" not in directives and "no-store" not in directives


def test_post_is_refused(client, game):
    url = reverse("suggest", kwargs={"game": GAME, "kind": "cards"})
    assert client.post(url, {"q": "a"}).status_code == 405


@pytest.mark.parametrize("kind", ["cards", "keywords", "leaders"])
def test_a_constant_number_of_queries_whatever_the_number_of_names(client, game, kind):
    def count(**params):
        with CaptureQueriesContext(connection) as ctx:
            options(suggest(client, kind, **params))
        return len(ctx.captured_queries)

    before = (count(q="b"), count())
    for i in range(20):
        services.save_leader(
            game=game, fields={"name": f"Bulk Leader {i}"}, colours=[], keywords=[f"Bw{i}"]
        )
        card(game, f"Bulk {i}", keywords=[f"Bw{i}"])
    after = (count(q="b"), count())
    assert before == after
    assert max(after) <= (2 if kind == "keywords" else 3)  # cards and leaders: their faces too
