"""What a deck's contents add up to: charts per deck section and sample hands.

Pure functions over loaded entries (cards with colours, type and rarity prefetched); the pages
of the deck and the builder show them. No rule is decided here: legality is the engine's.
"""

import random
from collections.abc import Iterable, Sequence

CURVE_TOP = 7  # the cost curve's last column holds everything from 7 up ("7+")


def _rows(counts: dict, extra: Iterable = ()) -> list[dict]:
    """Chart rows in the vocabulary's order; each bar's length relative to the largest."""
    items = sorted(counts.items(), key=lambda kv: (kv[0].position, kv[0].slug))
    items += [(None, n) for n in extra if n]
    top = max((n for _, n in items), default=0)
    return [{"item": item, "value": n, "pct": round(100 * n / top)} for item, n in items]


def cost_curve(entries) -> list[dict]:
    """Copies by total cost, from 0 to the highest (7+ holds the rest); an empty column
    between two others is shown, it is news too."""
    counts = [0] * (CURVE_TOP + 1)
    for entry in entries:
        counts[min(entry.card.total_cost, CURVE_TOP)] += entry.count
    if not any(counts):
        return []
    counts = counts[: max(i for i, n in enumerate(counts) if n) + 1]  # no empty tail
    top = max(counts)
    return [
        {
            "item": f"{cost}+" if cost == CURVE_TOP else str(cost),
            "value": n,
            "pct": round(100 * n / top),
        }
        for cost, n in enumerate(counts)
    ]


def deck_stats(entries, game) -> list[dict]:
    """Cost curve, cost per domain, colours, card types and rarities of the copies in `entries`
    (one deck section's, or all), as rows for bar charts; groups the game lacks are left out."""
    domains: dict = {}
    colours: dict = {}
    types: dict = {}
    rarities: dict = {}
    colourless = 0
    for entry in entries:
        card, n = entry.card, entry.count
        card_colours = card.colour_list
        for colour in card_colours:
            colours[colour] = colours.get(colour, 0) + n
            amount = (card.cost or {}).get(colour.domain)
            if amount:
                domains[colour] = domains.get(colour, 0) + amount * n
        if not card_colours:
            colourless += n
        for kind in card.type_list:  # a chant that is also a rune counts under both
            types[kind] = types.get(kind, 0) + n
        if card.rarity is not None:
            rarities[card.rarity] = rarities.get(card.rarity, 0) + n

    groups = [
        {
            "key": "curve",
            "title": f"{game.cost_label} curve",
            "hint": f"copies by total {game.cost_label.lower()}",
            "rows": cost_curve(entries),
        }
    ]
    if game.domain_label and game.colours_from_cost and game.colour_label:
        groups.append(
            {
                "key": "cost",
                "title": f"{game.cost_label} per {game.domain_label}",
                "hint": "total over all copies",
                "rows": _rows(domains),
            }
        )
    if game.colour_label:
        groups.append(
            {
                "key": "colours",
                "title": f"{game.colour_label}s",
                "hint": "copies; a card of two counts for both",
                "rows": _rows(colours, [colourless]),
            }
        )
    groups.append({"key": "types", "title": "Card types", "hint": "copies", "rows": _rows(types)})
    if rarities:
        groups.append(
            {"key": "rarities", "title": "Rarities", "hint": "copies", "rows": _rows(rarities)}
        )
    return groups


MAX_SEED = 2**31 - 1


def new_seed() -> int:
    return random.SystemRandom().randint(1, MAX_SEED)


def sample_hand(cards: Sequence[tuple[object, int]], *, size: int, seed: int, extra: int = 0):
    """The first `size + extra` cards of the pile (each card `count` times, in the given
    order) shuffled with `seed`: the same seed, pile and order always draw the same hand, and
    drawing one more (`extra + 1`) keeps the hand and adds the next card of that shuffle."""
    pile = [card for card, count in cards for _ in range(count)]
    random.Random(seed).shuffle(pile)
    return pile[: max(0, size + extra)], len(pile)
