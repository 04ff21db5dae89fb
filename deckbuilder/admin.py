"""Decks in the admin: players' own work, so staff look and moderate rather than edit. Taking a
deck down is on the deck's page (and the API); restoring is an action here. Both are recorded in
each deck's history.

Also the versions of a format (cards.models.FormatVersion): reference data, but their form
previews what a version does to the decks, which only this app knows (`cards` never imports
`deckbuilder`), so their admin is registered here."""

import hashlib
import json

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.shortcuts import redirect

from cards.admin import StaffCuratorMixin
from cards.models import Format, FormatVersion

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


# --- versions of a format -------------------------------------------------------------------


def describe_impact(impact: services.Impact, fmt: Format) -> str:
    """The preview in words."""
    plural = "s" * (impact.judged != 1)
    judged = f"{impact.judged} deck{plural} of {fmt} legal now judged under it"
    if not impact.by_owner:
        return f"This version makes no deck illegal ({judged})."
    public = impact.public or "no"
    owners = ", ".join(f"{name} {count}" for name, count in impact.by_owner.items())
    return (
        f"This version makes {public} public deck{'s' * (impact.public != 1)} illegal; "
        f"by owner: {owners} ({judged})."
    )


VERSION_FIELDS = ["format", "starts", "name", "sections", "rules", "banlist", "notes"]


class FormatVersionForm(forms.ModelForm):
    """A valid version is not saved at once: the form comes back with the preview of the decks
    it makes illegal, and saves only when "Save it" is ticked for the data that was previewed
    (its digest travels in a hidden field, so a change after the preview is previewed again)."""

    confirm = forms.BooleanField(
        label="Save it",
        required=False,
        help_text="The first save only previews the decks this version makes illegal (nothing "
        "is saved); tick this after reading the preview and save again to keep it.",
    )
    previewed = forms.CharField(required=False, widget=forms.HiddenInput)

    class Meta:
        model = FormatVersion
        fields = VERSION_FIELDS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["format"]
        field.queryset = field.queryset.select_related("game")
        field.label_from_instance = lambda fmt: f"{fmt.game}: {fmt}"
        if self.instance.pk:
            # A version stays with its format. Disabled rather than read-only: the field stays
            # in the form, so its one-version-a-day constraint is still checked.
            field.disabled = True

    def digest(self) -> str:
        """A short digest of the version's data (not of the confirmation)."""
        data = {name: self.cleaned_data.get(name) for name in VERSION_FIELDS}
        data["format"] = data["format"].pk
        text = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    def full_clean(self):
        """After every other check (the instance then holds the new data): the preview, as a
        form error, unless this very data was previewed and the save confirmed."""
        super().full_clean()
        if not self.is_bound or self.errors:
            return
        digest = self.digest()
        if self.cleaned_data["confirm"] and self.cleaned_data["previewed"] == digest:
            return
        impact = services.version_impact(version=self.instance)
        self.add_error(None, describe_impact(impact, self.instance.format))
        self.add_error(None, "Nothing is saved yet: tick “Save it” and save again to keep it.")
        self.data = self.data.copy()  # the digest of what was previewed, sent back with it
        self.data[self.add_prefix("previewed")] = digest


@admin.register(FormatVersion)
class FormatVersionAdmin(StaffCuratorMixin, admin.ModelAdmin):
    """A format's dated versions. A new one starts as a copy of another (`?copy=<pk>`, linked
    from the format's page as "New version from the current one"); saving one previews first
    (FormatVersionForm); its decks are judged again when it is saved or deleted
    (deckbuilder.signals). The last version of a format cannot be deleted."""

    form = FormatVersionForm
    list_display = ["name", "format_display", "starts_display"]
    list_filter = ["format__game"]
    list_select_related = ["format__game"]
    search_fields = ["name", "format__name"]
    fields = [*VERSION_FIELDS, "confirm", "previewed"]

    @admin.display(description="format", ordering="format__game__name")
    def format_display(self, version):
        return f"{version.format.game}: {version.format}"

    @admin.display(description="in force from", ordering="starts")
    def starts_display(self, version):
        return version.starts or "the beginning"

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        source = request.GET.get("copy", "")
        copied = FormatVersion.objects.filter(pk=source).first() if source.isdigit() else None
        if copied is not None:  # all but the start, which the curator gives
            initial.update(format=copied.format_id, name=copied.name, **copied.rules_data())
        return initial

    def get_actions(self, request):
        # One at a time, through delete_view, which keeps a format's last version.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def delete_view(self, request, object_id, extra_context=None):
        version = self.get_object(request, unquote(object_id))
        if version is not None and not version.format.versions.exclude(pk=version.pk).exists():
            self.message_user(
                request,
                f"“{version}” is the only version of {version.format}, and a format always has "
                "one: add another version before deleting this one.",
                messages.ERROR,
            )
            return redirect("admin:cards_formatversion_change", version.pk)
        return super().delete_view(request, object_id, extra_context)
