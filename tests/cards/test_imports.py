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
