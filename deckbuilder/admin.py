"""Decks in the admin: players' own work, so staff look and moderate rather than edit. Taking a
deck down is on the deck's page (and the API); restoring is an action here. Both are recorded in
each deck's history."""

from django.contrib import admin, messages

from . import services
from .models import Deck


class LegalNow(admin.SimpleListFilter):
    title = "legal now"
    parameter_name = "legal"

    def lookups(self, request, model_admin):
        return [("1", "Yes"), ("0", "No")]

    def queryset(self, request, queryset):
        if self.value() in {"0", "1"}:
            return queryset.legal_now(self.value() == "1")
        return queryset


@admin.register(Deck)
class DeckAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "game", "visibility", "legal", "card_count", "unpublished_at"]
    list_filter = ["visibility", "game", LegalNow, ("unpublished_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "owner__username", "share_id"]
    list_select_related = ["owner", "game"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("verdicts")

    @admin.display(boolean=True, description="legal now")
    def legal(self, deck):
        return deck.legal
    actions = ["restore_unpublished"]
    fields = [
        "name",
        "share_id",
        "owner",
        "game",
        "format",
        "leader",
        "visibility",
        "description",
        "legal",
        "card_count",
        "unpublished_reason",
        "unpublished_by",
        "unpublished_at",
        "created",
        "updated",
    ]
    readonly_fields = fields

    # Any active staff user moderates, as on the pages and in the API (no per-model permission).
    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # the view page and the actions; players' decks change through services

    def view_on_site(self, obj):
        return obj.get_absolute_url()

    @admin.action(description="Restore unpublished decks (their owners may make them public)")
    def restore_unpublished(self, request, queryset):
        decks = list(queryset.exclude(unpublished_at=None))
        for deck in decks:
            services.deck_restore(deck=deck, by=request.user)
        self.message_user(request, f"Restored {len(decks)} deck(s).", messages.SUCCESS)
