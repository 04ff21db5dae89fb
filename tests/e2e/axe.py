"""Accessibility checks in the browser tests with axe-core, vendored as a test asset
(tests/e2e/assets/axe.min.js, axe-core 4.14.1 from npm, MPL-2.0): no network at test time."""

from pathlib import Path

AXE = Path(__file__).parent / "assets" / "axe.min.js"
# WCAG 2.1 A and AA, plus axe's best practices (landmarks, one h1, skip links…).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


def violations(page) -> list[str]:
    """Every axe violation on the page as it is now, one line each (an empty list is a pass).
    The script is evaluated through the DevTools protocol, which the page's CSP does not
    govern, so the page's policy stays as strict as in production."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    options = {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]}
    result = page.evaluate("options => axe.run(document, options)", options)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(" ".join(node["target"]) for node in v["nodes"][:4])
        for v in result["violations"]
    ]
