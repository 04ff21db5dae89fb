"""The README and docs/*.md link only to files of the repository that exist: no relative link
leaves the repository (`../shared/...`) or points at a missing file, and the API documentation
the README links to is in docs/."""

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# [text](target "title"), ![alt](target) and reference definitions "[name]: target"
_INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def links_in(text: str) -> list[str]:
    """The link targets of a Markdown text, outside code blocks and code spans."""
    text = _CODE_SPAN.sub("", _FENCED.sub("", text))
    return _INLINE.findall(text) + _REFERENCE.findall(text)


def relative(target: str) -> bool:
    parts = urlsplit(target)
    return not parts.scheme and not parts.netloc and bool(parts.path)


def problems_of(text: str, document: Path) -> list[str]:
    """Why each relative link of `text`, read as `document`, is bad: outside the repository,
    or to a file that does not exist."""
    problems = []
    for target in links_in(text):
        if not relative(target):
            continue
        path = unquote(urlsplit(target).path)
        resolved = (ROOT / path.lstrip("/")) if path.startswith("/") else document.parent / path
        resolved = resolved.resolve()
        if not resolved.is_relative_to(ROOT):
            problems.append(f"{target}: outside the repository")
        elif not resolved.exists():
            problems.append(f"{target}: no such file")
    return problems


def test_there_are_documents_to_check_and_the_readme_links_some():
    assert (ROOT / "README.md") in DOCUMENTS and (ROOT / "docs" / "api.md") in DOCUMENTS
    assert [t for t in links_in((ROOT / "README.md").read_text()) if relative(t)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_an_existing_file_inside_the_repository(document):
    assert problems_of(document.read_text(encoding="utf-8"), document) == []


def test_the_readme_links_the_api_documentation_in_docs():
    targets = links_in((ROOT / "README.md").read_text())
    assert "docs/api.md" in targets


def test_the_api_documentation_covers_every_endpoint_errors_sections_and_the_text_format():
    text = (ROOT / "docs" / "api.md").read_text()
    for endpoint in [
        "/api/auth/token/",
        "/api/games/{game}/formats/{format}/",
        "/api/games/{game}/cards/{slug}/",
        "/api/games/{game}/leaders/{slug}/",
        "/api/games/{game}/rules/{number}/",
        "/api/games/{game}/rules/search/",
        "/api/games/{game}/glossary/",
        "/api/games/{game}/validate/",
        "/api/decks/public/",
        "/api/decks/{id}/copy/",
        "/api/decks/{id}/export/",
        "/api/decks/import/",
        "/api/decks/{id}/unpublish/",
    ]:
        assert endpoint in text, endpoint
    for heading in ["## Errors", "### Deck sections", "### The deck text format"]:
        assert heading in text, heading
    assert '{"code", "detail"}' in text


@pytest.mark.parametrize(
    ("link", "problem"),
    [
        ("[shared](../shared/api.md)", "outside the repository"),
        ("[gone](docs/nothing-here.md)", "no such file"),
        ("[up](/../../etc/passwd)", "outside the repository"),
        ("[ref]: ../shared/notes.md", "outside the repository"),
    ],
)
def test_a_link_outside_the_repository_or_to_a_missing_file_is_found(link, problem):
    readme = ROOT / "README.md"
    found = problems_of(readme.read_text() + f"\n{link}\n", readme)
    assert len(found) == 1 and problem in found[0], found


def test_links_in_code_and_to_the_web_are_not_checked():
    text = "`[a](../x.md)`\n\n```\n[b](../y.md)\n```\n\n[site](https://example.org/)"
    assert [t for t in links_in(text) if relative(t)] == []
