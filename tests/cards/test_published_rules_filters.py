"""The rules of formats as games publish them that judge one card against the leader
(`exclusive_keywords`, `pool`): the database filter (`Card.objects.usable_by`) lists exactly the
cards the engine's `card_problems` finds nothing against, on generated cards whose keywords sit
on their front or on another face and whose printings lie in generated sets."""

import itertools

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cards import legality, services
from cards.models import Card, CardSet, Game, Leader

pytestmark = pytest.mark.django_db

SIDES = ["Tales", "Villains", "Will of Hope", "Will of Despair", "Human"]
PAIRS = [["Tales", "Villains"], ["Will of Hope", "Will of Despair"]]
SETS = ["BEL", "TID", "PR"]  # the sample sets: BEL and TID in "Bell cluster", PR in none
DB_SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

keywords = st.lists(st.sampled_from(SIDES), max_size=3, unique=True)
# A card: (its front's keywords, its other face's keywords or None, the sets it is printed in)
cards = st.lists(
    st.tuples(
        keywords, st.none() | keywords, st.lists(st.sampled_from(SETS), max_size=2, unique=True)
    ),
    min_size=1,
    max_size=5,
)


RUN = itertools.count()  # examples share the test's transaction: each makes its own names


@pytest.fixture
def fow(db):
    return Game.objects.get(slug="force-of-will")


def make_cards(game, specs) -> list[int]:
    run = next(RUN)
    resonator = game.card_types.get(slug="resonator")
    sets = {s.code: s for s in CardSet.objects.filter(game=game)}
    writes = [
        services.CardWrite(
            {"name": f"Generated {run}.{i}", "type": resonator},
            front,
            card=None,
            faces=None if back is None else [{"name": f"Back {run}.{i}", "keywords": back}],
            printings=[{"set": sets[code], "number": f"GEN{run}-{i}-{code}"} for code in printed],
        )
        for i, (front, back, printed) in enumerate(specs)
    ]
    return [card.pk for card in services.save_cards(game=game, writes=writes)]


def make_leader(game, front, back) -> Leader:
    faces = [{"name": "Generated J-ruler", "types": ["j-ruler"], "keywords": back}]
    leader = services.save_leader(
        game=game,
        fields={"name": f"Generated Ruler {next(RUN)}"},
        colours=[],
        keywords=front,
        **({"faces": faces} if back else {}),
    )
    return Leader.objects.for_rules().get(pk=leader.pk)


def agree(game, leader, rules, pks) -> int:
    """usable_by and card_problems agree on the cards `pks`; how many the rules refused."""
    engine = legality.Format.from_data(
        {"sections": [{"slug": "main", "name": "Main"}], "rules": rules}
    )
    by_db = set(
        Card.objects.usable_by(leader, engine).filter(pk__in=pks).values_list("pk", flat=True)
    )
    pool = Card.objects.filter(pk__in=pks).for_listing()
    info = leader.info()
    by_engine = {c.pk for c in pool if not legality.card_problems(engine, info, c.info())}
    assert by_db == by_engine, rules
    return len(pks) - len(by_engine)


@DB_SETTINGS
@example(
    specs=[(["Villains"], None, []), ([], ["Villains"], []), (["Human"], None, [])],
    front=["Tales"],
    back=[],
)
@example(specs=[(["Tales", "Villains"], None, []), ([], None, [])], front=[], back=[])
@example(specs=[(["Will of Despair"], None, [])], front=[], back=["Will of Hope"])
@given(specs=cards, front=keywords, back=keywords)
def test_usable_by_agrees_with_the_engine_on_exclusive_keywords(fow, specs, front, back):
    pks = make_cards(fow, specs)
    leader = make_leader(fow, front, back)
    agree(fow, leader, [{"rule": "exclusive_keywords", "pairs": PAIRS}], pks)


def test_a_tales_ruler_may_not_use_a_card_whose_back_is_villains(fow):
    pks = make_cards(fow, [([], ["Villains"], []), (["Human"], None, [])])
    leader = make_leader(fow, ["Tales"], [])
    refused = agree(fow, leader, [{"rule": "exclusive_keywords", "pairs": PAIRS}], pks)
    assert refused == 1


@DB_SETTINGS
@example(
    specs=[([], None, ["PR"]), ([], None, ["BEL", "PR"]), ([], None, [])], pool={"sets": ["PR"]}
)
@example(specs=[([], None, ["TID"]), ([], None, ["PR"])], pool={"groups": ["Bell cluster"]})
@given(
    specs=cards,
    pool=st.one_of(
        st.fixed_dictionaries({"sets": st.lists(st.sampled_from(SETS), min_size=1, unique=True)}),
        st.fixed_dictionaries({"groups": st.just(["Bell cluster"])}),
    ),
)
def test_usable_by_agrees_with_the_engine_on_the_pool(fow, specs, pool):
    pks = make_cards(fow, specs)
    leader = Leader.objects.for_rules().filter(game=fow).first()
    agree(fow, leader, [{"rule": "pool", **pool}], pks)
