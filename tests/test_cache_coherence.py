"""The pages cache never answers what a render would not: every kind of page, read with the
cache on, then each kind of write an admin or a player makes, then every page read again with
the cache on and compared with a render with the cache off."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from cards import pagecache, services
from cards.models import Card, Format, GlossaryTerm, Leader, Ruling
from deckbuilder import services as deck_services
from deckbuilder.models import Deck, Visibility
from tests.conftest import RULES
from tests.deckbuilder.test_decks_with_card import make_deck

pytestmark = pytest.mark.django_db

GAME = "card-of-gods"
G = {"game": GAME}


def pages(deck: Deck) -> list[str]:
    return [
        reverse("home"),
        reverse("game-detail", kwargs=G),
        reverse("card-list", kwargs=G) + "?q=heal&sort=name",
        reverse("card-list", kwargs=G) + "?colour=green&rarity=common&leader=kellantra",
        reverse("card-detail", kwargs={**G, "slug": "healing"}),
        reverse("card-detail", kwargs={**G, "slug": "despair"}),
        reverse("leader-list", kwargs=G),
        reverse("leader-detail", kwargs={**G, "slug": "gottfried"}),
        reverse("format-detail", kwargs={**G, "slug": "standard"}),
        reverse("rule-index", kwargs=G),
        reverse("rule-contents", kwargs={**G, "number": "2"}),
        reverse("rule-section", kwargs={**G, "number": "2"}),
        reverse("rule-search", kwargs=G) + "?q=deck",
        reverse("rule-glossary", kwargs=G),
        reverse("rule-print", kwargs=G),
        deck.get_absolute_url(),
        reverse("deck-list"),
        reverse("deck-list") + "?sort=copied",
        f"/api/games/{GAME}/cards/?q=heal",
        f"/api/games/{GAME}/cards/healing/",
        f"/api/games/{GAME}/leaders/",
        f"/api/games/{GAME}/rules/",
        f"/api/games/{GAME}/glossary/",
    ]


def edit_card(world):
    card = Card.objects.get(game=world["game"], slug="healing")
    services.save_card(
        game=world["game"], fields={"text": "Heal all wounds, twice."}, card=card, keywords=[]
    )


def edit_leader(world):
    leader = Leader.objects.get(game=world["game"], slug="gottfried")
    leader.name = "Gottfried the Bold"
    leader.save()


def edit_ruling(world):
    ruling = Ruling.objects.filter(card__game=world["game"]).first()
    ruling.answer = "Only on a full moon."
    ruling.save()


def edit_glossary(world):
    term = GlossaryTerm.objects.filter(game=world["game"]).first()
    term.definition = "A word the rules now define otherwise."
    term.save()


def edit_format(world):
    fmt = Format.objects.get(game=world["game"], slug="standard")
    services.save_format(game=world["game"], data={**fmt.as_data(), "name": "Standard (2027)"})


def import_rules(world):
    text = (RULES / f"{GAME}.md").read_text(encoding="utf-8")
    services.import_rules(game=world["game"], text=text.replace("Scope", "Scope of it all"))


def edit_deck(world):
    deck_services.deck_update(deck=world["deck"], name="Thunder and rain")


def count_in_deck(world):
    deck = deck_services.deck_update(deck=world["deck"], visibility=Visibility.UNLISTED)
    card = Card.objects.get(game=world["game"], slug="despair")
    deck_services.deck_set_count(deck=deck, card=card, count=1)


def copy_deck(world):
    deck_services.deck_copy(deck=world["deck"], owner=world["bob"])


def unpublish_deck(world):
    deck_services.deck_unpublish(deck=world["deck"], by=world["staff"], reason="Spam.")


def rename_user(world):
    alice = get_user_model().objects.get(pk=world["deck"].owner_id)
    alice.username = "alicia"
    alice.save()


def change_static_files(world, monkeypatch):
    monkeypatch.setattr(pagecache, "release", lambda: "a new build")


WRITES = [
    edit_card,
    edit_leader,
    edit_ruling,
    edit_glossary,
    edit_format,
    import_rules,
    edit_deck,
    count_in_deck,
    copy_deck,
    unpublish_deck,
    rename_user,
    change_static_files,
]


@pytest.mark.parametrize("write", WRITES, ids=lambda w: w.__name__)
def test_after_each_write_every_page_is_what_a_render_gives(
    client, settings, sample_rules, alice, bob, staff, monkeypatch, write
):
    settings.PAGE_CACHE = True
    deck = make_deck(alice, "Thunder and gloom", visibility=Visibility.PUBLIC)
    world = {"game": sample_rules, "deck": deck, "bob": bob, "staff": staff}
    urls = pages(deck)
    before = {url: client.get(url) for url in urls}
    assert all(r.status_code == 200 for r in before.values()), [
        (u, r.status_code) for u, r in before.items() if r.status_code != 200
    ]
    if write is change_static_files:
        write(world, monkeypatch)
    else:
        write(world)
    kept = {url: client.get(url).content for url in urls}
    settings.PAGE_CACHE = False
    rendered = {url: client.get(url).content for url in urls}
    assert [url for url in urls if kept[url] != rendered[url]] == []
    if write is not change_static_files:  # the same bytes, drawn anew
        assert [url for url in urls if kept[url] != before[url].content], "nothing showed it"
