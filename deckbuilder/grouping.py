"""A deck section's entries grouped by card type, as players read a list: "Resonator (12)",
then its cards. Pure: it reads the loaded entries (each card with its type) and the game's
types in their order; no query, no rule.
"""


def by_type(entries, game) -> list[dict]:
    """`entries` (in the order to show them) grouped by their card's first type, the groups in
    the game's order of types: each with its `type`, `name`, `count` (of copies) and `entries`."""
    order = {kind.pk: i for i, kind in enumerate(game.type_list)}
    groups: dict[int, dict] = {}
    for entry in entries:
        kind = entry.card.type
        group = groups.get(kind.pk)
        if group is None:
            group = groups[kind.pk] = {"type": kind, "name": kind.name, "count": 0, "entries": []}
        group["count"] += entry.count
        group["entries"].append(entry)
    # a type the game's list lacks (never, but a list is no place to fail) goes last, by name
    return sorted(groups.values(), key=lambda g: (order.get(g["type"].pk, len(order)), g["name"]))
