from django.urls import path, register_converter
from rest_framework.routers import SimpleRouter

from . import api, views


class SectionNumberConverter:
    """A rules section number as written in URLs: 3, 3.1, 100.1a (leading zeros allowed, then
    redirected). Words such as "search" or "print" never match."""

    regex = r"\d+(?:\.\d+)*[a-z]?"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return str(value)


register_converter(SectionNumberConverter, "section")

GAME = r"games/(?P<game>[-a-z0-9_]+)"

router = SimpleRouter()
router.register("games", api.GameViewSet, basename="api-game")
router.register(rf"{GAME}/formats", api.FormatViewSet, basename="api-format")
router.register(rf"{GAME}/cards", api.CardViewSet, basename="api-card")
router.register(rf"{GAME}/leaders", api.LeaderViewSet, basename="api-leader")
router.register(rf"{GAME}/sets", api.CardSetViewSet, basename="api-set")
router.register(rf"{GAME}/rules", api.RuleViewSet, basename="api-rule")
router.register(rf"{GAME}/glossary", api.GlossaryViewSet, basename="api-glossary")
api_urlpatterns = [
    *router.urls,
    path("games/<slug:game>/printings/<str:number>/", api.printing_detail, name="api-printing"),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("colours.css", views.colours_css, name="colours-css"),
    path("games/<slug:game>/", views.game_detail, name="game-detail"),
    path("games/<slug:game>/formats/<slug:slug>/", views.format_detail, name="format-detail"),
    path("games/<slug:game>/cards/", views.card_list, name="card-list"),
    path("games/<slug:game>/suggest/<slug:kind>/", views.suggest, name="suggest"),
    path("suggest/<slug:kind>/", views.suggest, name="suggest-any"),  # names of every game
    path("games/<slug:game>/cards/<slug:slug>/", views.card_detail, name="card-detail"),
    path("games/<slug:game>/cards/<slug:slug>/face.svg", views.card_face, name="card-face"),
    path("games/<slug:game>/sets/", views.set_list, name="set-list"),
    path("games/<slug:game>/sets/<str:code>/", views.set_detail, name="set-detail"),
    path("games/<slug:game>/leaders/", views.leader_list, name="leader-list"),
    path("games/<slug:game>/leaders/<slug:slug>/", views.leader_detail, name="leader-detail"),
    path("games/<slug:game>/rules/", views.rule_index, name="rule-index"),
    path("games/<slug:game>/rules/search/", views.rule_search, name="rule-search"),
    path("games/<slug:game>/rules/glossary/", views.rule_glossary, name="rule-glossary"),
    path("games/<slug:game>/rules/print/", views.rule_print, name="rule-print"),
    path(
        "games/<slug:game>/rules/print/<section:number>/",
        views.rule_print_chapter,
        name="rule-print-chapter",
    ),
    path(
        "games/<slug:game>/rules/contents/<section:number>/",
        views.rule_contents,
        name="rule-contents",
    ),
    path("games/<slug:game>/rules/<section:number>/", views.rule_section, name="rule-section"),
]
