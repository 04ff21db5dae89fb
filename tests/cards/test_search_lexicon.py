"""On PostgreSQL, a card search with its game turns each word start that few words of the game
have into those words (cards.vocabulary.lexicon, CardQuerySet.search): the full-text index reads
exact words through and skips, where it reads a word start's every card. These tests prove it
finds the same cards as the word starts, and that a new word is found at once."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st

from cards import services, vocabulary
from cards.models import EXPANDED, Card, _as_words

LEXICON = ("deal", "death", "decree", "defence", "despair", "dragon", "draw", "www.example.com")


def test_a_word_start_few_words_have_becomes_those_words():
    assert _as_words("dea", LEXICON) == "(deal | death)"
    assert _as_words("dragon", LEXICON) == "(dragon)"


def test_a_word_start_no_word_has_stays_a_word_start():
    # The lexicon may be older than the index: the word start still finds what is there.
    assert _as_words("zzyzx", LEXICON) == "zzyzx:*"
    assert _as_words("dz", LEXICON) == "dz:*"


def test_a_word_start_too_many_words_have_stays_a_word_start():
    many = tuple(sorted(f"de{i:02}" for i in range(EXPANDED + 1)))
    assert _as_words("de", many) == "de:*"
    assert _as_words("de", many[:EXPANDED]) == f"({' | '.join(many[:EXPANDED])})"


def test_a_word_to_tsquery_would_read_otherwise_keeps_the_word_start():
    # A host name is one lexeme, but "www.example.com" given to to_tsquery is not a plain word.
    assert _as_words("www", LEXICON) == "www:*"


words = st.text(alphabet="abé1_.", min_size=1, max_size=5)


@given(lexicon=st.sets(words, max_size=40), start=words)
def test_the_term_matches_exactly_the_lexicon_words_the_word_start_matches(lexicon, start):
    lexicon = tuple(sorted(lexicon))
    term = _as_words(start, lexicon)
    starting = {w for w in lexicon if w.startswith(start)}
    if term == f"{start}:*":  # kept: too many, none, or one to_tsquery would not read back
        assert (
            not starting or len(starting) > EXPANDED or any("_" in w or "." in w for w in starting)
        )
    else:
        assert set(re.fullmatch(r"\((.*)\)", term).group(1).split(" | ")) == starting


@pytest.mark.django_db
class TestOnPostgresql:
    @pytest.fixture(autouse=True)
    def _postgresql_only(self):
        if connection.vendor != "postgresql":
            pytest.skip("the lexicon is the PostgreSQL search index's; SQLite matches substrings")

    def test_the_lexicon_holds_the_words_of_names_and_texts(self, game):
        words = vocabulary.lexicon(game)
        assert list(words) == sorted(set(words))
        assert {"plant", "seed", "sapling", "target", "ground"} <= set(words)

    def test_every_word_start_finds_the_cards_it_found_as_a_word_start(self, game):
        cards, lexicon = Card.objects.filter(game=game), vocabulary.lexicon(game)
        starts = {word[:n] for word in lexicon for n in (1, 2, 3, 5)}
        queries = sorted(starts) + ["target mini", "make an att", "of the", "zzyzx", "heal t"]
        for text in queries:
            expected = set(cards.search(text).values_list("pk", flat=True))
            assert set(cards.search(text, lexicon).values_list("pk", flat=True)) == expected, text
        assert len(queries) > 100

    def test_the_index_is_asked_for_exact_words(self, game):
        with CaptureQueriesContext(connection) as queries:
            list(Card.objects.filter(game=game).search("sapl targ", vocabulary.lexicon(game)))
        [sql] = [q["sql"] for q in queries if "to_tsquery" in q["sql"]]
        assert "(sapling) & (target" in sql and ":*" not in sql

    def test_a_new_word_is_found_by_a_start_it_shares_with_an_old_one_at_once(self, game):
        assert "target" in vocabulary.lexicon(game)  # kept at this rules_version
        services.save_card(
            game=game,
            fields={"name": "Targeteer Wyrmling", "rarity": game.rarities.get(slug="common")},
            keywords=[],
        )
        game.refresh_from_db()  # the new rules_version
        found = Card.objects.filter(game=game).search("targe wyrml", vocabulary.lexicon(game))
        assert list(found.values_list("name", flat=True)) == ["Targeteer Wyrmling"]
