from django.urls import path
from rest_framework.routers import SimpleRouter

from . import api, views

router = SimpleRouter()
router.register("games", api.GameViewSet, basename="api-game")
router.register(r"games/(?P<game>[-a-z0-9_]+)/cards", api.CardViewSet, basename="api-card")
router.register(r"games/(?P<game>[-a-z0-9_]+)/leaders", api.LeaderViewSet, basename="api-leader")
api_urlpatterns = router.urls

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<slug:game>/", views.game_detail, name="game-detail"),
    path("games/<slug:game>/cards/", views.card_list, name="card-list"),
    path("games/<slug:game>/cards/<slug:slug>/", views.card_detail, name="card-detail"),
    path("games/<slug:game>/leaders/", views.leader_list, name="leader-list"),
    path("games/<slug:game>/leaders/<slug:slug>/", views.leader_detail, name="leader-detail"),
    path("games/<slug:game>/rules/", views.rule_index, name="rule-index"),
    path("games/<slug:game>/rules/<str:number>/", views.rule_section, name="rule-section"),
]
