"""What tests build, one way each: decks through the deck services, format versions as the
admin and imports save them (so the verdicts follow through the signals, as on the site)."""

from cards import services as card_services
from cards.models import Card, Format, FormatVersion, Game, Leader
from deckbuilder import services
from deckbuilder.models import Deck, Visibility

# Gottfried (black, yellow, red; Kriegmark) may use all of these: a legal Card of Gods ten.
GOTTFRIED_TEN = {"despair": 3, "lightning": 3, "fiery-earth": 2, "punishment": 1, "blood-pact": 1}


def cards(game: Game, counts: dict[str, int], section: str = "main") -> dict:
    """{(card, section): n} of the game's cards named by slug in `counts`."""
    by_slug = {c.slug: c for c in Card.objects.filter(game=game, slug__in=counts)}
    return {(by_slug[slug], section): n for slug, n in counts.items()}


def leader(game: Game, slug: str) -> Leader:
    return Leader.objects.get(game=game, slug=slug)


def deck(
    owner,
    game: Game,
    counts: dict[str, int] = GOTTFRIED_TEN,
    *,
    lead: str | None = "gottfried",
    fmt: Format | None = None,
    visibility: str = Visibility.PUBLIC,
    name: str = "Gottfried ten",
) -> Deck:
    """A deck of `game` made by `owner` (public, Gottfried's legal ten unless told)."""
    return services.deck_create(
        owner=owner,
        game=game,
        format=fmt,
        name=name,
        leader=leader(game, lead) if lead else None,
        visibility=visibility,
        contents=cards(game, counts),
    )


def add_version(
    fmt: Format,
    starts: str | None,
    name: str = "New ban list",
    *,
    banlist: dict | None = None,
    rules: list | None = None,
    like: FormatVersion | None = None,
) -> FormatVersion:
    """A version of `fmt` from `starts` (an ISO date; None: from the beginning) with the
    sections and rules of `like` (default: the version in force today) and this ban list."""
    like = like or Format.objects.get(pk=fmt.pk).current
    data = {
        "from": starts,
        "name": name,
        "sections": like.sections,
        "rules": like.rules if rules is None else rules,
        "banlist": banlist or {},
        "notes": "",
    }
    return card_services.save_format_version(fmt=fmt, data=data)
