"""Reading rules documents into sections (cards.rulebook.parse_document), importing them
(cards.services.import_rules, manage.py import_rules) and the sample rules content.

The seed documents are real-world rules of five games (several in Russian, messy formatting),
kept beside the project in ../shared/seeds (or $RULES_SEEDS).
"""

import io
import json
import os
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cards import rulebook, services
from cards.models import GlossaryTerm, RuleSection, Ruling

ROOT = Path(__file__).resolve().parents[2]
SEEDS = Path(os.environ.get("RULES_SEEDS", ROOT.parent / "shared" / "seeds"))
SAMPLE_RULES = ROOT / "cards" / "sample" / "rules"


def seed(prefix: str) -> Path:
    if not SEEDS.is_dir():  # a clone on its own: the seeds are not part of the project
        pytest.skip(f"no seeds at {SEEDS}: they live beside the project (or set RULES_SEEDS)")
    found = sorted(SEEDS.glob(f"{prefix}_*.txt"))
    assert found, f"seed {prefix} not found in {SEEDS} (set RULES_SEEDS)"
    return found[0]


def parse_seed(prefix: str) -> rulebook.ParsedDocument:
    return rulebook.parse_document(rulebook.decode(seed(prefix).read_bytes()))


def by_number(document) -> dict[str, rulebook.ParsedSection]:
    return {s.number: s for s in document.sections}


def children(document, number) -> list[str]:
    return [s.number for s in document.sections if s.parent_number == number]


def call(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


# --- the five seed documents ----------------------------------------------------------------


def test_seed_000_short_plain_lines_become_level_one_headings():
    document = parse_seed("000")
    assert document.style == "plain"
    assert len(document.sections) == 32
    assert [s.number for s in document.sections] == [str(n) for n in range(1, 33)]
    titles = [s.title for s in document.sections]
    assert titles[:6] == [
        "Card of Gods",
        "Gods Intervention",
        "Tokens of Faith",
        "Devotion",
        "Gaining Faith",
        "Making Deck",
    ]
    assert "Step 1: Playing the Card" in titles and "Легальная цель Карты" in titles
    # Lines of a list, a line broken mid-sentence and a line followed by ", because" are body.
    assert 'Token of Faith "Death"' not in titles
    assert "Player got a" not in titles
    assert 'He receives two Tokens of the Faith of "Creation"' not in titles
    tokens = by_number(document)["3"]
    assert 'Token of Faith "Death"' in tokens.body
    step = by_number(document)["19"]
    assert step.body.startswith("- The player declares")  # • bullets became a list


def test_seed_001_numbered_rules_nest_by_number_and_get_a_created_parent():
    document = parse_seed("001")
    assert document.style == "numbered"
    assert len(document.sections) == 22
    sections = by_number(document)
    assert sections["207"].title == "" and sections["207"].body == ""  # created: not in the file
    assert children(document, "207") == ["207.4"]
    assert sections["208"].title == "Герои"
    assert children(document, "208") == ["208.1", "208.2", "208.3", "208.4"]
    assert children(document, "210") == ["210.1", "210.2", "210.3"]
    assert [s.number for s in document.sections if s.depth == 1] == [
        "207",
        "208",
        "209",
        "210",
        "211",
        "301",
    ]
    # A rule that is a sentence has no title: its text opens the body.
    assert sections["208.4"].title == ""
    assert sections["208.4"].body.startswith("Герой не может атаковать")
    assert sections["301"].title == "Подготовительный этап"  # 211 to 301: sections may jump
    assert document.warnings == []
    # An unnumbered line stays in the body of the rule above it.
    assert "Часть 3. Этапы и фазы игры" in sections["211.4"].body


def test_seed_002_blog_post_headings_and_numbered_lists_stay_in_bodies():
    document = parse_seed("002")
    assert document.style == "plain"
    assert [s.title for s in document.sections] == [
        "Declaring attack and defending",
        "Basic ability [Unit]",
        "Trait [Hero/Pantheon]",
        "More on Pantheon",
        "More on Heroes",
        "More on Artifacts",
        "More on Units",
        "Terrain bonus/penalty",
    ]
    assert document.skipped_lines == 2  # the date and the post title
    combat = by_number(document)["1"]
    assert "1. Attacking party will always strike first" in combat.body
    assert "\n2. Defending party" in combat.body  # one list, not paragraphs


def test_seed_003_asterisk_headings_with_numbered_items_in_the_body():
    document = parse_seed("003")
    assert document.style == "asterisk"
    assert len(document.sections) == 10
    sections = by_number(document)
    assert sections["1"].title == "УСЛОВИЯ ПОБЕДЫ"
    assert sections["3"].title == "ИГРОВОЕ ПОЛЕ"
    assert sections["10"].title == "ВДОГОНКУ"
    assert sections["3"].body.count("\n") == 5  # items 1-6 of the field, one list
    assert sections["3"].body.startswith("1. Рука")
    assert document.skipped_lines == 3
    assert all(s.depth == 1 for s in document.sections)


def test_seed_004_rst_levels_follow_the_underline_characters():
    document = parse_seed("004")
    assert document.style == "rst"
    assert [(s.number, s.title, s.parent_number) for s in document.sections] == [
        ("1", "Developers note", None),
        ("1.1", "Todo", "1"),
        ("1.2", "Magic types", "1"),
        ("1.2.1", "Rituals", "1.2"),
        ("1.2.2", "Mounts", "1.2"),
        ("1.2.3", "Heroes", "1.2"),
        ("1.2.4", "Abilities", "1.2"),
        ("1.2.5", "Loyalty Points", "1.2"),
        ("1.2.6", "Countering", "1.2"),
        ("1.3", "Prerequisite", "1"),
        ("1.4", "Executing the counter", "1"),
    ]
    bodies = "\n".join(s.body for s in document.sections)
    assert "{{warning" not in bodies and "mediawiki" not in bodies  # raw blocks dropped
    mounts = by_number(document)["1.2.2"].body
    assert "1. Mounts are a subtype" in mounts and "#." not in mounts


@pytest.mark.parametrize(
    ("prefix", "count"), [("000", 32), ("001", 22), ("002", 8), ("003", 10), ("004", 11)]
)
def test_import_rules_imports_each_seed_and_a_second_import_changes_nothing(game, prefix, count):
    text = rulebook.decode(seed(prefix).read_bytes())
    first = services.import_rules(game=game, text=text)
    assert (first.created, first.updated) == (count, 0)
    assert RuleSection.objects.filter(game=game).count() == count
    html_before = dict(RuleSection.objects.filter(game=game).values_list("number", "body_html"))
    again = services.import_rules(game=game, text=text)
    assert (again.created, again.updated, again.unchanged) == (0, 0, count)
    html_after = dict(RuleSection.objects.filter(game=game).values_list("number", "body_html"))
    assert html_after == html_before


def test_imported_seed_sections_hang_under_their_parents(game):
    services.import_rules(game=game, text=rulebook.decode(seed("001").read_bytes()))
    created = RuleSection.objects.get(game=game, number="207")
    assert [s.number for s in created.children.order_by("sort_key")] == ["207.4"]
    heroes = RuleSection.objects.get(game=game, number="208")
    assert [s.number for s in heroes.children.order_by("sort_key")] == [
        "208.1",
        "208.2",
        "208.3",
        "208.4",
    ]
    assert heroes.children.get(number="208.4").depth == 2


# --- Markdown --------------------------------------------------------------------------------

MARKDOWN = """\
Intro text that is not a section.

# 4 Making a deck

A deck has ten cards (see 4.3).

## 4.2. Copies

Up to three.

## 4.3 Matching colours

Colours match the leader.

### Example

Richard is yellow.

## Factions

```
# not a heading inside code
```
"""


def test_markdown_headings_keep_their_numbers_and_unnumbered_ones_follow_on():
    document = rulebook.parse_document(MARKDOWN)
    assert document.style == "markdown"
    assert [(s.number, s.title) for s in document.sections] == [
        ("4", "Making a deck"),
        ("4.2", "Copies"),
        ("4.3", "Matching colours"),
        ("4.3.1", "Example"),
        ("4.4", "Factions"),
    ]
    assert document.skipped_lines == 1
    assert by_number(document)["4.4"].body == "```\n# not a heading inside code\n```"


def test_markdown_headings_without_numbers_are_numbered_by_position():
    document = rulebook.parse_document("## Setup\n\ntext\n\n### Shuffle\n\n## Play\n")
    assert [(s.number, s.title) for s in document.sections] == [
        ("1", "Setup"),
        ("1.1", "Shuffle"),
        ("2", "Play"),
    ]


def test_a_byte_order_mark_and_windows_line_ends_are_fine():
    data = "\ufeff# 1 Start\r\n\r\nBody.\r\n".encode()
    document = rulebook.parse_document(rulebook.decode(data))
    assert [(s.number, s.title, s.body) for s in document.sections] == [("1", "Start", "Body.")]


def test_reading_as_a_forced_format():
    document = rulebook.parse_document("1. One\n2. Two\n", fmt="numbered")
    assert [(s.number, s.title) for s in document.sections] == [("1", "One"), ("2", "Two")]


# --- errors name the line -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "empty"),
        ("  \n\u00a0\n", 1, "empty"),
        ("just one long sentence of text that is not a heading at all.\n", 1, "no sections"),
        ("Title\n\nTitle too short\n---\n", 4, "underline of 'Title too short' is shorter"),
        ("# 1 A\n\n# 2 B\n\n# 1 C\n", 5, "section 1 appears twice"),
        ("# 3 A\n\n# 2 B\n", 3, "section 2 comes after 3"),
        ("# 1 " + "x" * 201 + "\n", 1, "longer than 200"),
        ("# 12345 Too big\n", 1, "at most 9999"),
    ],
)
def test_bad_documents_give_an_error_naming_the_line(text, line, message):
    with pytest.raises(rulebook.RulesParseError) as error:
        rulebook.parse_document(text, numbering="document")
    assert error.value.line == line
    assert message in error.value.message
    assert str(error.value).startswith(f"line {line}: ")


def test_undecodable_bytes_give_an_error_naming_the_line():
    with pytest.raises(rulebook.RulesParseError, match="line 3: not UTF-8") as error:
        rulebook.decode(b"# 1 A\n\nbad \xff byte\n")
    assert error.value.line == 3


def test_a_bad_document_writes_nothing(game):
    services.import_rules(game=game, text="# 1 Kept\n\nOld.\n")
    with pytest.raises(rulebook.RulesParseError):
        services.import_rules(
            game=game, text="# 1 Changed\n\n# 2 B\n\n# 2 C\n", numbering="document"
        )
    assert list(RuleSection.objects.filter(game=game).values_list("number", "title")) == [
        ("1", "Kept")
    ]


# --- importing -------------------------------------------------------------------------------


def test_dry_run_writes_nothing_and_returns_the_tree(game):
    report = services.import_rules(game=game, text=MARKDOWN, dry_run=True)
    assert not RuleSection.objects.filter(game=game).exists()
    assert report.created == 5
    assert report.tree().splitlines() == [
        "4 Making a deck",
        "  4.2 Copies",
        "  4.3 Matching colours",
        "    4.3.1 Example",
        "  4.4 Factions",
    ]


def test_reimport_updates_sections_in_place_and_keeps_their_anchors(game):
    services.import_rules(game=game, text=MARKDOWN)
    before = RuleSection.objects.get(game=game, number="4.3")
    changed = MARKDOWN.replace("## 4.3 Matching colours", "## 4.3 Colour identity").replace(
        "Colours match the leader.", "Every colour must be the leader's."
    )
    report = services.import_rules(game=game, text=changed)
    after = RuleSection.objects.get(game=game, number="4.3")
    assert (report.created, report.updated, report.unchanged) == (0, 1, 4)
    assert after.pk == before.pk and after.anchor == before.anchor == "r4-3"
    assert after.title == "Colour identity"
    assert after.body == "Every colour must be the leader's."


def test_sections_missing_from_the_file_become_obsolete_and_are_reported(game):
    services.import_rules(game=game, text=MARKDOWN)
    report = services.import_rules(game=game, text="# 4 Making a deck\n\n## 4.2 Copies\n")
    assert report.obsolete == ["4.3", "4.3.1", "4.4"]
    assert "3 sections not in the file are marked obsolete" in report.summary()
    assert RuleSection.objects.filter(game=game).count() == 5
    assert RuleSection.objects.live().filter(game=game).count() == 2


def test_a_new_section_whose_anchor_is_taken_gets_a_fresh_one(game):
    services.import_rules(game=game, text="# 1 A\n\n## 1.1 B\n")
    old = RuleSection.objects.get(game=game, number="1.1")
    old.number = "1.2"  # renumbered by an editor: keeps the anchor r1-1
    old.save()
    services.import_rules(game=game, text="# 1 A\n\n## 1.1 New\n\n## 1.2 B\n")
    new = RuleSection.objects.get(game=game, number="1.1")
    assert RuleSection.objects.get(pk=old.pk).anchor == "r1-1"
    assert new.anchor != "r1-1" and new.anchor.startswith("r1-1")


def test_imported_cross_links_resolve_also_to_sections_later_in_the_file(game):
    services.import_rules(game=game, text=MARKDOWN)
    deck = RuleSection.objects.get(game=game, number="4")
    target = RuleSection.objects.get(game=game, number="4.3")
    assert f'href="{target.permalink()}">4.3</a>' in deck.body_html


def test_a_reimport_links_references_to_sections_it_adds(game):
    services.import_rules(game=game, text="# 1 A\n\nsee 2.\n")
    assert "rule-ref" not in RuleSection.objects.get(game=game, number="1").body_html
    report = services.import_rules(game=game, text="# 1 A\n\nsee 2.\n\n# 2 B\n")
    assert (report.created, report.unchanged) == (1, 1)
    assert "rule-ref" in RuleSection.objects.get(game=game, number="1").body_html


# --- the command ----------------------------------------------------------------------------


def test_command_dry_run_prints_the_tree_and_writes_nothing(game, tmp_path):
    path = tmp_path / "rulebook.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    out = call("import_rules", "card-of-gods", str(path), "--dry-run")
    assert "4 Making a deck\n  4.2 Copies\n  4.3 Matching colours\n    4.3.1 Example\n" in out
    assert "nothing was written" in out
    assert not RuleSection.objects.filter(game=game).exists()


def test_command_imports_a_seed_file_and_prints_a_summary(game):
    out = call("import_rules", "card-of-gods", str(seed("004")))
    assert "Imported 11 sections of card-of-gods (reStructuredText): 11 created" in out
    assert RuleSection.objects.filter(game=game).count() == 11


def test_command_reports_the_bad_line_and_writes_nothing(game, tmp_path):
    path = tmp_path / "bad.rst"
    path.write_text("Fine\n====\n\nToo long a title\n---\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"line 5: the underline .* nothing was written"):
        call("import_rules", "card-of-gods", str(path))
    assert not RuleSection.objects.filter(game=game).exists()


def test_command_refuses_an_unknown_game_and_a_missing_file(game, tmp_path):
    with pytest.raises(CommandError, match="No game 'nope'"):
        call("import_rules", "nope", str(seed("001")))
    with pytest.raises(CommandError, match="Cannot read"):
        call("import_rules", "card-of-gods", str(tmp_path / "missing.md"))


# --- sample content (cards/sample/rules) ----------------------------------------------------


def test_sample_rules_parse_as_numbered_markdown():
    path = SAMPLE_RULES / "card-of-gods.md"
    document = rulebook.parse_document(rulebook.decode(path.read_bytes()))
    assert document.style == "markdown"
    numbers = [s.number for s in document.sections]
    assert "4.2" in numbers and "5.5.1" in numbers
    assert all(s.title for s in document.sections)


def test_load_sample_data_imports_rules_glossary_and_rulings_idempotently(game):
    call("load_sample_data")
    sections = RuleSection.objects.filter(game=game).count()
    terms = GlossaryTerm.objects.filter(game=game).count()
    rulings = Ruling.objects.filter(card__game=game).count()
    glossary = json.loads((SAMPLE_RULES / "card-of-gods.glossary.json").read_text("utf-8"))
    assert sections > 0 and terms == len(glossary)
    linked = [g for g in glossary if g.get("section")]
    if linked:
        term = GlossaryTerm.objects.get(game=game, term=linked[0]["term"])
        assert term.section.number == linked[0]["section"]
    anchors = dict(RuleSection.objects.filter(game=game).values_list("number", "anchor"))
    out = call("load_sample_data")
    assert "0 created, 0 updated" in out.split("rules:")[1]
    assert RuleSection.objects.filter(game=game).count() == sections
    assert GlossaryTerm.objects.filter(game=game).count() == terms
    assert Ruling.objects.filter(card__game=game).count() == rulings
    assert dict(RuleSection.objects.filter(game=game).values_list("number", "anchor")) == anchors
