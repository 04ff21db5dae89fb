"""Rule sections, glossary terms and rulings: numbers, anchors, sanitised rendering with
cross-links, constraints, and their admin pages."""

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from cards import rulebook
from cards.models import Card, Game, GlossaryTerm, RuleSection, Ruling, section_links


def section(game, number, title="", body=""):
    return RuleSection.objects.create(game=game, number=number, title=title, body=body)


@pytest.fixture
def tree(game):
    """Sections 4, 4.2, 4.3 and 10 of Card of Gods."""
    return {n: section(game, n, title=f"Title {n}") for n in ("4", "4.2", "4.3", "10")}


@pytest.fixture
def other_game(db):
    return Game.objects.create(slug="other", name="Other Game")


def render(game, text):
    return rulebook.render_markdown(text, section_links(game))


# --- numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "key", "parent"),
    [
        ("3", "0003", None),
        ("3.1.2", "0003.0001.0002", "3.1"),
        ("10.2", "0010.0002", "10"),
        ("100.1a", "0100.0001.a", "100.1"),
    ],
)
def test_number_helpers_give_padded_sort_key_and_parent(number, key, parent):
    assert rulebook.sort_key(number) == key
    assert rulebook.parent_number(number) == parent


def test_sort_keys_order_numbers_as_rules_not_as_text():
    numbers = ["10", "2", "2.10", "2.9", "2.9.1", "100.1b", "100.1a", "100.1"]
    assert sorted(numbers, key=rulebook.sort_key) == [
        "2",
        "2.9",
        "2.9.1",
        "2.10",
        "10",
        "100.1",
        "100.1a",
        "100.1b",
    ]


@pytest.mark.parametrize(("raw", "clean"), [("03.1.", "3.1"), (" 4 ", "4"), ("207.4.", "207.4")])
def test_normalise_number_strips_zeros_spaces_and_final_dot(raw, clean):
    assert rulebook.normalise_number(raw) == clean


@pytest.mark.parametrize("raw", ["", "a", "3..1", "3.x", "12345", "1.2.3.4.5.6.7.8.9", "-1"])
def test_normalise_number_rejects_what_is_not_a_section_number(raw):
    with pytest.raises(ValueError):
        rulebook.normalise_number(raw)


# --- sections --------------------------------------------------------------------------------


def test_saving_a_section_derives_parent_depth_sort_key_and_anchor(tree, game):
    child = section(game, "4.3.2", "Deep")
    assert child.parent == tree["4.3"]
    assert child.depth == 3
    assert child.sort_key == "0004.0003.0002"
    assert child.anchor == "r4-3-2"
    assert tree["4"].parent is None and tree["4.2"].parent == tree["4"]


def test_sections_are_listed_in_rule_order(tree, game):
    numbers = list(RuleSection.objects.filter(game=game).values_list("number", flat=True))
    assert numbers == ["4", "4.2", "4.3", "10"]


def test_anchor_is_set_once_and_survives_renumbering_and_retitling(tree):
    moved = tree["4.3"]
    moved.number, moved.title = "4.4", "Renamed"
    moved.save()
    moved.refresh_from_db()
    assert moved.anchor == "r4-3"
    # The number 4.3 is free again; its new section gets a different anchor.
    new = section(moved.game, "4.3", "New")
    assert new.anchor != "r4-3" and new.anchor.startswith("r4-3")


def test_urls_page_of_section_and_permalink_on_top_level_page(tree):
    sub = tree["4.2"]
    assert sub.get_absolute_url() == reverse(
        "rule-section", kwargs={"game": "card-of-gods", "number": "4.2"}
    )
    top_page = reverse("rule-section", kwargs={"game": "card-of-gods", "number": "4"})
    assert sub.permalink() == f"{top_page}#r4-2"


def test_number_is_unique_within_a_game_but_not_across_games(tree, game, other_game):
    section(other_game, "4")
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleSection.objects.create(game=game, number="4", anchor="another-anchor")


def test_anchor_is_unique_within_a_game(tree, game):
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleSection.objects.create(game=game, number="11", anchor="r4")


def test_empty_number_is_refused_by_the_database(game):
    with pytest.raises(IntegrityError), transaction.atomic():
        RuleSection.objects.bulk_create(
            [RuleSection(game=game, number="", anchor="x", sort_key="", depth=1)]
        )


def test_clean_normalises_the_number_and_needs_the_parent_first(tree, game):
    ok = RuleSection(game=game, number="4.05.", title="Fine")
    ok.full_clean()
    assert ok.number == "4.5"
    orphan = RuleSection(game=game, number="7.1", title="Orphan")
    with pytest.raises(ValidationError, match="Add section 7 first"):
        orphan.full_clean()
    bad = RuleSection(game=game, number="seven", title="Bad")
    with pytest.raises(ValidationError, match="not a section number"):
        bad.full_clean()


def test_clean_refuses_to_renumber_a_section_that_has_subsections(tree):
    parent = tree["4"]
    parent.number = "5"
    with pytest.raises(ValidationError, match="subsections"):
        parent.full_clean()


def test_untitled_section_shows_the_start_of_its_body(game):
    rule = section(game, "207", body="Cards have a cost. They also have text.")
    assert rule.display_title == "Cards have a cost."
    assert str(section(game, "208")) == "208 Section 208"


# --- rendering: sanitised -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "forbidden"),
    [
        ("Hello <script>alert(1)</script> world", ["<script", "alert(1)"]),
        ('<img src="x.png" onerror="alert(1)">', ["onerror", "alert"]),
        ("[click](javascript:alert(1))", ["javascript:", "alert"]),
        ('<a href="javascript:alert(1)">x</a>', ["javascript:", "alert"]),
        ("<style>body{display:none}</style>text", ["<style", "display:none"]),
        ('<iframe src="https://evil.example"></iframe>', ["<iframe"]),
        ('<p onclick="steal()" style="color:red">x</p>', ["onclick", "steal", "style="]),
        ("<svg><script>alert(1)</script></svg>", ["<script", "<svg"]),
    ],
)
def test_rendering_strips_scripts_handlers_and_javascript_urls(game, body, forbidden):
    rule = section(game, "1", body=body)
    for text in forbidden:
        assert text not in rule.body_html


def test_rendering_keeps_ordinary_markdown(game):
    html = render(game, "**Bold** and *em*\n\n- one\n- two\n\n| a | b |\n|---|--:|\n| 1 | 2 |")
    assert "<strong>Bold</strong>" in html and "<em>em</em>" in html
    assert "<li>one</li>" in html
    assert '<td align="right">2</td>' in html


def test_external_links_get_nofollow_noopener_and_internal_links_do_not(game):
    html = render(game, "[out](https://example.com/x) and [in](/games/card-of-gods/)")
    assert '<a href="https://example.com/x" rel="nofollow noopener">out</a>' in html
    assert '<a href="/games/card-of-gods/">in</a>' in html


def test_a_rel_given_in_the_source_is_dropped(game):
    html = render(game, '<a href="/x" rel="opener">x</a>')
    assert "opener" not in html


# --- rendering: cross-links -----------------------------------------------------------------


def test_see_number_links_to_an_existing_section(tree, game):
    html = render(game, "Pay first (see 4.2).")
    assert f'(see <a class="rule-ref" href="{tree["4.2"].permalink()}">4.2</a>).' in html


def test_see_a_missing_number_stays_plain_text(tree, game):
    html = render(game, "See 9.9 for more.")
    assert html == "<p>See 9.9 for more.</p>"


@pytest.mark.parametrize(
    ("text", "linked"),
    [
        ("rule 4.2 applies", ["4.2"]),
        ("Rules 4.2 and 4.3 apply", ["4.2", "4.3"]),
        ("see 4.2, 4.3 or 10", ["4.2", "4.3", "10"]),
        ("as said before (4.3).", ["4.3"]),
        ("section 10 says", ["10"]),
        ("§ 4.2 says", ["4.2"]),
        ("см. 4.3 выше", ["4.3"]),
        ("по правилу 4.2", ["4.2"]),
    ],
)
def test_reference_forms_become_links(tree, game, text, linked):
    html = render(game, text)
    assert html.count('class="rule-ref"') == len(linked)
    for number in linked:
        assert f"#{tree[number].anchor}" in html


@pytest.mark.parametrize(
    "text",
    [
        "A deck of 4.2 cards",  # no reference word
        "see 4.20 later",  # another number that merely starts the same
        "(4)",  # a one-part number in brackets is not a reference
        "see 4.2a",  # unknown sub-rule
    ],
)
def test_numbers_that_are_not_references_to_existing_sections_stay_text(tree, game, text):
    assert "rule-ref" not in render(game, text)


def test_no_cross_link_inside_code_or_an_existing_link(tree, game):
    html = render(
        game,
        "`see 4.2` and\n\n```\nrule 4.3\n```\n\n[see 4.2](https://example.com) and see 10.",
    )
    assert "<code>see 4.2</code>" in html
    assert "rule 4.3\n</code></pre>" in html
    assert '<a href="https://example.com" rel="nofollow noopener">see 4.2</a>' in html
    assert html.count('class="rule-ref"') == 1  # only "see 10"


def test_cross_linking_cannot_inject_markup(tree, game):
    html = render(game, "see 4.2&lt;script&gt;alert(1)&lt;/script&gt; and see 4.3 <b>")
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert html.count('class="rule-ref"') == 2


def test_section_bodies_link_to_sections_saved_before_them(tree, game):
    rule = section(game, "11", body="Like rule 4.3 and rule 12.")
    assert f"#{tree['4.3'].anchor}" in rule.body_html
    assert "rule 12." in rule.body_html  # 12 does not exist


# --- glossary --------------------------------------------------------------------------------


def test_glossary_term_gets_a_unicode_slug_and_rendered_definition(tree, game):
    term = GlossaryTerm.objects.create(
        game=game,
        term="Зона Ожидания",
        aliases=["Waiting zone", "Waiting Activation"],
        definition="Where cards wait (see 4.2). <script>x()</script>",
        section=tree["4.2"],
    )
    assert term.slug == "зона-ожидания"
    assert "rule-ref" in term.definition_html and "<script" not in term.definition_html
    assert list(tree["4.2"].glossary_terms.all()) == [term]


def test_glossary_term_is_unique_per_game_whatever_the_case(game, other_game):
    GlossaryTerm.objects.create(game=game, term="Faith", definition="x")
    GlossaryTerm.objects.create(game=other_game, term="Faith", definition="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        GlossaryTerm.objects.create(game=game, term="FAITH", slug="faith-2", definition="x")


def test_glossary_clean_refuses_a_section_of_another_game_and_bad_aliases(game, other_game):
    foreign = section(other_game, "1")
    term = GlossaryTerm(game=game, term="Faith", definition="x", section=foreign)
    with pytest.raises(ValidationError, match="another game"):
        term.full_clean()
    term = GlossaryTerm(game=game, term="Faith", definition="x", aliases="Waiting zone")
    with pytest.raises(ValidationError, match="list of names"):
        term.full_clean()


# --- rulings ---------------------------------------------------------------------------------


def test_rulings_belong_to_a_card_and_come_in_date_order(game):
    card = Card.objects.get(game=game, slug="healing")
    late = Ruling.objects.create(
        card=card, question="Late?", answer="Yes.", date=datetime.date(2026, 11, 2)
    )
    early = Ruling.objects.create(
        card=card, question="Early?", answer="No.", date=datetime.date(2026, 1, 5)
    )
    assert list(card.rulings.all()) == [early, late]


# --- admin -----------------------------------------------------------------------------------


@pytest.mark.parametrize("model", [RuleSection, GlossaryTerm, Ruling])
def test_staff_can_open_the_rules_changelists_and_add_forms(staff_client, tree, model):
    name = model._meta.model_name
    assert staff_client.get(reverse(f"admin:cards_{name}_changelist")).status_code == 200
    assert staff_client.get(reverse(f"admin:cards_{name}_add")).status_code == 200


def test_section_change_form_shows_the_sanitised_preview(staff_client, game):
    rule = section(game, "1", body="**Strong** <script>alert(1)</script>")
    response = staff_client.get(reverse("admin:cards_rulesection_change", args=[rule.pk]))
    content = response.content.decode()
    assert "<strong>Strong</strong>" in content  # the preview is HTML...
    assert "<script>alert(1)" not in content  # ...without the script (the source is escaped)
    assert "&lt;script&gt;alert(1)" in content


def test_adding_a_section_in_the_admin_links_references_to_it_elsewhere(staff_client, game):
    waiting = section(game, "1", body="Pay first (see 2).")
    assert "rule-ref" not in waiting.body_html
    response = staff_client.post(
        reverse("admin:cards_rulesection_add"),
        {"game": game.pk, "number": "2", "title": "Paying", "anchor": "", "body": "Pay."},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    waiting.refresh_from_db()
    assert "rule-ref" in waiting.body_html
    assert RuleSection.objects.get(game=game, number="2").anchor == "r2"


def test_card_change_form_has_rulings_inline(staff_client, game):
    card = Card.objects.get(game=game, slug="healing")
    Ruling.objects.create(
        card=card, question="Heals a dead miniature?", answer="No.", date=datetime.date(2026, 11, 1)
    )
    response = staff_client.get(reverse("admin:cards_card_change", args=[card.pk]))
    assert "Heals a dead miniature?" in response.content.decode()


def test_glossary_admin_finds_a_term_by_its_russian_alias(staff_client, game):
    GlossaryTerm.objects.create(
        game=game, term="Waiting Activation", aliases=["зона Ожидания"], definition="x"
    )
    GlossaryTerm.objects.create(game=game, term="Faith", definition="y")
    response = staff_client.get(reverse("admin:cards_glossaryterm_changelist"), {"q": "ожидания"})
    content = response.content.decode()
    assert "Waiting Activation" in content
    assert ">Faith<" not in content
