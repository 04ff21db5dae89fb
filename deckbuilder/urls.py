from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import SimpleRouter

from cards.urls import api_urlpatterns as cards_api

from . import accounts, api, views

decks_api = SimpleRouter()
decks_api.register("decks", api.DeckViewSet, basename="api-deck")

api_urlpatterns = [
    *cards_api,
    path("games/<slug:game>/validate/", api.validate, name="api-validate"),
    *decks_api.urls,
    path("auth/token/", accounts.token_view, name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its init script as a file (?script): our CSP allows no inline script.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
]

deck_urlpatterns = [
    path("", views.deck_list, name="deck-list"),
    path("mine/", views.my_decks, name="my-decks"),
    path("new/", views.deck_new, name="deck-new"),
    path("import/", views.deck_import, name="deck-import"),
    path("<str:share_id>/", views.deck_detail, name="deck-detail"),
    path("<str:share_id>/edit/", views.deck_edit, name="deck-edit"),
    path("<str:share_id>/copy/", views.deck_copy, name="deck-copy"),
    path("<str:share_id>/unpublish/", views.deck_unpublish, name="deck-unpublish"),
    path("<str:share_id>/export.txt", views.deck_export, name="deck-export"),
    path("<str:share_id>/preview-<int:version>.png", views.deck_preview, name="deck-preview"),
    path("<str:share_id>/history/", views.deck_history, name="deck-history"),
    path(
        "<str:share_id>/history/<int:number>/restore/",
        views.deck_restore_version,
        name="deck-restore",
    ),
    path("<str:share_id>/delete/", views.deck_delete, name="deck-delete"),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(api_urlpatterns)),
    path("accounts/", include("deckbuilder.accounts")),
    path("decks/", include(deck_urlpatterns)),
    path("healthz", views.healthz, name="healthz"),
    # Link previews of the reference's pages, drawn here: the reference never imports the decks.
    path(
        "games/<slug:game>/cards/<slug:slug>/preview.png", views.card_preview, name="card-preview"
    ),
    path(
        "games/<slug:game>/leaders/<slug:slug>/preview.png",
        views.leader_preview,
        name="leader-preview",
    ),
    path("", include("cards.urls")),
]
# Uploaded art under DEBUG (make run); in production the proxy serves MEDIA_ROOT (README).
urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)

# JSON under /api/, the site's pages elsewhere; 503 when the database does not answer.
handler400 = "deckbuilder.api_errors.bad_request"
handler403 = "deckbuilder.api_errors.permission_denied"
handler404 = "deckbuilder.api_errors.page_not_found"
handler500 = "deckbuilder.api_errors.server_error"
