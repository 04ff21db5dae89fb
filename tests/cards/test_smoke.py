from cards.models import Card


def test_world_has_colourless_and_three_colour_cards(game):
    assert Card.objects.get(slug="quiet-prayer").colours.count() == 0
    assert Card.objects.get(slug="blood-pact").colours.count() == 3
