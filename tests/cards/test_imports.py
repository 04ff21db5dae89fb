"""The reference's modules import one way: the models import nothing that reads them (the
vocabulary, the glossary, the pages cache), lazily or not, so no module is half-loaded when
another needs it, and a queryset never reaches into a cache (what it needs is handed in)."""

import ast
from pathlib import Path

CARDS = Path(__file__).resolve().parents[2] / "cards"


def imported_by(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # from . import x / from .x import y
                modules |= {base} if base else {alias.name for alias in node.names}
            else:
                modules.add(base)
    return modules


def test_the_models_import_no_module_that_reads_them():
    readers = {"vocabulary", "glossary", "pagecache", "catalogue", "views", "api", "filters"}
    imported = {m.split(".")[-1] for m in imported_by(CARDS / "models.py")}
    assert imported & readers == set()


def test_the_pages_cache_imports_nothing_that_imports_it():
    imported = {m.split(".")[-1] for m in imported_by(CARDS / "pagecache.py")}
    assert imported & {"vocabulary", "faces", "views", "api"} == set()


# Underscored names that are public API: a model's options, a named tuple's copy with changes.
PUBLIC = {"_meta", "_replace"}


def private_uses(path: Path) -> list[str]:
    """`obj._name = …` (or del) and `obj._name(…)` where obj is not self or cls: setting or
    calling a private name of another object (Django's, a library's)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name, owner = node.attr, node.value
        if not name.startswith("_") or name.startswith("__") or name in PUBLIC:
            continue
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(node.ctx, ast.Store | ast.Del) or id(node) in called:
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_module_sets_or_calls_a_private_name_of_another_object():
    sources = [
        path
        for app in ("cards", "deckbuilder")
        for path in (CARDS.parent / app).rglob("*.py")
        if "migrations" not in path.parts
    ]
    assert len(sources) > 20
    assert [use for path in sources for use in private_uses(path)] == []


def test_a_private_name_set_on_a_queryset_is_found(tmp_path):
    source = tmp_path / "example.py"
    source.write_text("rows._result_cache = []\nrows._fetch_all()\nself._mine = 1\n")
    assert private_uses(source) == [
        "example.py:1 rows._result_cache",
        "example.py:2 rows._fetch_all",
    ]
