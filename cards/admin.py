"""Django admin of the reference data, plus bulk import and export pages for cards and leaders.

Staff curate the reference data (as in the API, where any staff user may write): every staff
user may view, add, change and delete games, keywords, cards and leaders here, without needing
per-model permissions. Lists run a constant number of queries (related rows are joined or
prefetched).
"""

import io

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import IS_POPUP_VAR
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from . import art, importers, services
from .models import (
    Card,
    CardSet,
    CardType,
    Colour,
    Format,
    FormatVersion,
    Game,
    GlossaryTerm,
    Keyword,
    Leader,
    Loyalty,
    Printing,
    Rarity,
    RuleSection,
    Ruling,
    Stat,
)


class StaffCuratorMixin:
    """Any active staff user curates the reference data (the API's rule, IsStaffOrReadOnly)."""

    def _is_curator(self, request):
        return request.user.is_active and request.user.is_staff

    def has_module_permission(self, request):
        return self._is_curator(request)

    def has_view_permission(self, request, obj=None):
        return self._is_curator(request)

    def has_add_permission(self, request, *args):
        return self._is_curator(request)

    def has_change_permission(self, request, obj=None):
        return self._is_curator(request)

    def has_delete_permission(self, request, obj=None):
        return self._is_curator(request)


class FactionListFilter(admin.SimpleListFilter):
    """Faction keywords (of the game chosen in the game filter, if any)."""

    title = "faction"
    parameter_name = "faction"

    def lookups(self, request, model_admin):
        factions = Keyword.objects.filter(is_faction=True).select_related("game")
        game = request.GET.get("game__id__exact")
        if game and game.isdigit():
            factions = factions.filter(game_id=game)
        several_games = len({k.game_id for k in factions}) > 1
        return [
            (str(k.pk), f"{k.name} ({k.game.name})" if several_games else k.name) for k in factions
        ]

    def queryset(self, request, queryset):
        value = self.value()
        if value and value.isdigit():
            return queryset.filter(keywords__pk=value)
        return queryset


def _names(objects) -> str:
    return ", ".join(str(o) for o in objects) or "—"


# --- games and their vocabulary -------------------------------------------------------------


class ColourInline(StaffCuratorMixin, admin.TabularInline):
    model = Colour
    extra = 0
    fields = ["position", "slug", "name", "symbol", "css", "domain", "domain_name"]


class RarityInline(StaffCuratorMixin, admin.TabularInline):
    model = Rarity
    extra = 0
    fields = ["position", "slug", "name", "symbol", "code"]


class CardTypeInline(StaffCuratorMixin, admin.TabularInline):
    model = CardType
    extra = 0
    fields = ["position", "slug", "name"]


class StatInline(StaffCuratorMixin, admin.TabularInline):
    model = Stat
    extra = 0
    fields = ["position", "slug", "name"]


def add_first_version(fmt: Format) -> FormatVersion:
    """A new format's first version: in force from the beginning, named like the format, one
    deck section and no rules, for the curator to edit on its page."""
    data = {"from": None, "name": fmt.name, "sections": [{"slug": "main", "name": "Deck"}]}
    return services.save_format_version(fmt=fmt, data=data)


class FormatInline(StaffCuratorMixin, admin.TabularInline):
    """The game's formats at a glance; their sections and rules are in their versions, edited
    on their own pages. A format added here gets a first version (add_first_version)."""

    model = Format
    extra = 0
    fields = ["position", "slug", "name", "is_default"]
    show_change_link = True


@admin.register(Game)
class GameAdmin(StaffCuratorMixin, admin.ModelAdmin):
    list_display = ["name", "slug", "leader_label", "is_sample"]
    list_filter = ["is_sample"]
    search_fields = ["name", "slug", "description"]
    prepopulated_fields = {"slug": ["name"]}
    fieldsets = [
        (None, {"fields": ["name", "slug", "description", "language", "is_sample"]}),
        (
            "Vocabulary: what the game calls things (pages show these words)",
            {
                "fields": [
                    ("leader_label", "leaders_label"),
                    ("card_label", "cards_label"),
                    "cost_label",
                    ("colour_label", "domain_label"),
                    "generic_cost_label",
                    "colours_from_cost",
                    "condition_label",
                ]
            },
        ),
    ]
    inlines = [FormatInline, CardTypeInline, ColourInline, RarityInline, StatInline]

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        if formset.model is Format:  # a format always has a version
            for fmt in formset.new_objects:
                add_first_version(fmt)


class FormatVersionInline(StaffCuratorMixin, admin.TabularInline):
    """A format's versions, read only here: each is changed on its own page, which previews the
    decks a change makes illegal (deckbuilder.admin.FormatVersionAdmin)."""

    model = FormatVersion
    fields = ["in_force_from", "name"]
    readonly_fields = fields
    show_change_link = True
    extra = 0

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="in force from")
    def in_force_from(self, version):
        return version.starts or "the beginning"


@admin.register(Format)
class FormatAdmin(StaffCuratorMixin, admin.ModelAdmin):
    """A format's name, place and hand size; one default per game (Format.clean). What judges
    its decks (sections, rules, ban list) is in its dated versions, listed here and each
    changed on its own page, where a new one starts from "New version from the current one".

    A format added here gets a first version at once (add_first_version: from the beginning,
    one deck section, no rules) and the page goes on to it: the rules are written in one
    place, the version's page, rather than in a second form on this one."""

    list_display = ["name", "game", "slug", "is_default", "position"]
    list_filter = ["game"]
    list_select_related = ["game"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    fields = ["game", "name", "slug", "is_default", "position", "hand_size"]

    def get_inlines(self, request, obj):
        return [FormatVersionInline] if obj else []  # an added format's comes with it

    def get_fields(self, request, obj=None):
        return [*self.fields, "new_version"] if obj else self.fields

    def get_readonly_fields(self, request, obj=None):
        return ["game", "new_version"] if obj else []

    @admin.display(description="new version")
    def new_version(self, fmt):
        current = fmt.current
        url = reverse("admin:cards_formatversion_add") + f"?copy={current.pk}"
        return format_html(
            '<a href="{}">New version from the current one</a> (“{}”)', url, current.name
        )

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:
            add_first_version(obj)

    def response_add(self, request, obj, post_url_continue=None):
        response = super().response_add(request, obj, post_url_continue)
        if IS_POPUP_VAR in request.POST:
            return response
        self.message_user(
            request,
            "Its first version, in force from the beginning, has one deck section and no "
            "rules: give it its sections, rules and ban list here.",
            messages.INFO,
        )
        return redirect("admin:cards_formatversion_change", obj.current.pk)


@admin.register(Keyword)
class KeywordAdmin(StaffCuratorMixin, admin.ModelAdmin):
    list_display = ["name", "game", "is_faction"]
    list_editable = ["is_faction"]
    list_filter = ["game", "is_faction"]
    list_select_related = ["game"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


# --- cards and leaders ----------------------------------------------------------------------


class GameScopedForm(forms.ModelForm):
    """Relations of a card or leader must belong to its own game."""

    game_scoped = ("keywords",)
    image = forms.URLField(required=False, max_length=200, assume_scheme="https")

    def clean(self):
        cleaned = super().clean()
        game = cleaned.get("game")
        if game is None:
            return cleaned
        for name in self.game_scoped:
            foreign = [o for o in cleaned.get(name) or [] if o.game_id != game.pk]
            if foreign:
                self.add_error(name, f"Not of the game {game}: {_names(foreign)}.")
        name = cleaned.get("name")
        others = self._meta.model.objects.filter(game=game, name__iexact=name or "")
        if self.instance.pk:
            others = others.exclude(pk=self.instance.pk)
        if name and others.exists():
            self.add_error("name", f"{name!r} already exists in this game.")
        return cleaned


class CardAdminForm(GameScopedForm):
    """Cost and stats are checked by Card.clean against the game's vocabulary and stored
    normalised. Where the game derives colours from the cost, those chosen here are the ones
    beside it (a ruler's, a 0-cost rune's)."""

    game_scoped = ("keywords", "colours")

    class Meta:
        model = Card
        fields = [
            "game",
            "name",
            "slug",
            "type",
            "rarity",
            "keywords",
            "cost",
            "colours",
            "stats",
            "loyalty_faction",
            "loyalty_points",
            "condition",
            "text",
            "flavour",
            "effect_source",
            "makes_attack",
            "image",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        card = self.instance
        if card.pk and card.game.colours_from_cost:  # the cost's colours are not chosen here
            self.initial["colours"] = [c.pk for c in card.given_colours]

    def clean(self):
        cleaned = super().clean()
        game = cleaned.get("game")
        if game is not None and game.colours_from_cost and "colours" in cleaned:
            # The cost's colours, and those chosen beside it.
            cost = cleaned.get("cost") if isinstance(cleaned.get("cost"), dict) else {}
            paid = [c for d, c in game.domains().items() if d in cost]
            cleaned["colours"] = list({c.pk: c for c in [*paid, *cleaned["colours"]]}.values())
        return cleaned


class ArtForm(forms.ModelForm):
    """The art of a printing or a leader (cards.art): a picture uploaded here is checked when
    the form is (a refused file is an error on the field, and nothing is saved), and stored
    as renditions when the form saves; "Remove art" clears it."""

    art_upload = forms.FileField(
        label="Art",
        required=False,
        help_text="A JPEG, PNG, WebP or GIF picture; stored as small, normal and large renditions.",
    )
    clear_art = forms.BooleanField(label="Remove art", required=False)

    def clean_art_upload(self):
        upload = self.cleaned_data.get("art_upload")
        self.picture = art.check(upload, name=upload.name) if upload else None
        return upload

    def save(self, commit=True):
        picture = getattr(self, "picture", None)
        if picture is not None:
            self.instance.art = art.store(picture)
        elif self.cleaned_data.get("clear_art"):
            self.instance.art = None
        return super().save(commit)


class LeaderAdminForm(ArtForm, GameScopedForm):
    game_scoped = ("keywords", "colours")
    # The source of its art, as an import gives it: a URL or a path beside the file.
    image = forms.CharField(
        required=False,
        max_length=200,
        validators=[art.validate_source],
        help_text="Where its art came from (a URL, or an import file's path); upload the art "
        "itself below.",
    )

    class Meta:
        model = Leader
        fields = ["game", "name", "slug", "colours", "keywords", "text", "image"]
        widgets = {"colours": forms.CheckboxSelectMultiple}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        colours = self.fields["colours"]
        if self.instance.pk:
            colours.queryset = colours.queryset.filter(game=self.instance.game_id)
        else:
            colours.queryset = colours.queryset.select_related("game")
            colours.label_from_instance = lambda c: f"{c.game.name}: {c}"


class RulingInline(StaffCuratorMixin, admin.StackedInline):
    model = Ruling
    extra = 0
    fields = ["date", "question", "answer", "source"]


class PrintingForm(ArtForm):
    def clean_number(self):
        """A number is unique within the game, any case (the form leaves the game out, so the
        database's constraint is not checked here)."""
        number = self.cleaned_data["number"]
        instance = self.instance
        owner = instance.owner if instance.card_id or instance.leader_id else None
        if owner is not None:
            others = Printing.objects.filter(game_id=owner.game_id, number__iexact=number)
            if others.exclude(pk=instance.pk).exists():
                raise ValidationError(f"A printing numbered {number!r} already exists.")
        return number


class PrintingFormSet(forms.BaseInlineFormSet):
    def clean(self):
        super().clean()
        numbers = [
            form.cleaned_data["number"].lower()
            for form in self.forms
            if form.cleaned_data.get("number") and not form.cleaned_data.get("DELETE")
        ]
        if len(numbers) != len(set(numbers)):
            raise ValidationError("A number is given twice.")


def art_preview(obj) -> str:
    """The small rendition of the art of a printing or leader (its fallback format), or —."""
    if obj is None or not obj.art_id:
        return "—"
    found = obj.art
    small = found.renditions[0]
    return format_html(
        '<img src="{}" width="{}" height="{}" alt="Its art">',
        found.url(small["size"], found.fallback),
        small["width"],
        small["height"],
    )


class PrintingInline(StaffCuratorMixin, admin.TabularInline):
    """A card's or leader's printings; the first (by position) with art is the art shown."""

    model = Printing
    form = PrintingForm
    formset = PrintingFormSet
    extra = 0
    fields = [
        "position",
        "set",
        "number",
        "rarity",
        "artist",
        "art_shown",
        "art_upload",
        "clear_art",
        "image",
        "flavour",
    ]
    readonly_fields = ["art_shown"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("art")

    @admin.display(description="art")
    def art_shown(self, printing):
        return art_preview(printing)


@admin.register(CardSet)
class CardSetAdmin(StaffCuratorMixin, admin.ModelAdmin):
    list_display = ["code", "name", "group", "released", "game"]
    list_filter = ["game", "group"]
    search_fields = ["code", "name", "group"]
    ordering = ["game", "released", "code"]


@admin.register(Card)
class CardAdmin(StaffCuratorMixin, admin.ModelAdmin):
    form = CardAdminForm
    list_display = [
        "name",
        "game",
        "rarity",
        "cost_display",
        "colour_display",
        "total_cost",
        "faction_display",
        "makes_attack",
    ]
    list_select_related = ["game", "rarity", "type"]
    list_filter = ["game", "type", "colours", "rarity", FactionListFilter, "makes_attack"]
    search_fields = ["name", "text"]
    autocomplete_fields = ["keywords"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["colour_display", "total_cost", "created", "updated"]
    fieldsets = [
        (None, {"fields": ["game", "name", "slug", "type", "rarity", "keywords"]}),
        (
            "Cost and colours",
            {
                "fields": ["cost", "colours", "colour_display", "total_cost"],
                "description": 'Cost per domain, e.g. {"life": 2}, with "generic" for a generic '
                "amount. Colours: in games that derive them from the cost, choose only those "
                "beside it.",
            },
        ),
        (
            "Stats and loyalty",
            {
                "fields": ["stats", ("loyalty_faction", "loyalty_points")],
                "description": 'Stats the game defines, e.g. {"atk": 600}. Loyalty: the faction '
                "and the points (1-3) a hero needs in it.",
            },
        ),
        ("Text", {"fields": ["condition", "text", "flavour", "effect_source", "makes_attack"]}),
        (None, {"fields": ["image", "created", "updated"]}),
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("colours", "keywords")

    def get_inlines(self, request, obj):
        return [PrintingInline, RulingInline] if obj else []  # about an existing card

    @admin.display(description="cost")
    def cost_display(self, card):
        return importers.format_pairs(card.cost) or "—"

    @admin.display(description="colours")
    def colour_display(self, card):
        if card.pk is None:
            return "(from the cost, on save)"
        return _names(card.colour_list)

    @admin.display(description="factions")
    def faction_display(self, card):
        return _names(card.factions)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("import/", view(self.import_view), name="cards_card_import"),
            path("export/", view(self.export_view), name="cards_card_export"),
            path(
                "export/<slug:game>.<str:fmt>",
                view(self.export_view),
                name="cards_card_export_file",
            ),
            *super().get_urls(),
        ]

    def import_view(self, request):
        if not self.has_add_permission(request) or not self.has_change_permission(request):
            return redirect("admin:index")
        report = None
        if request.method == "POST":
            form = ImportForm(request.POST, request.FILES)
            if form.is_valid():
                report = form.run()
                if isinstance(report, list):  # a ban list: its formats
                    names = ", ".join(f.name for f in report) or "none (a dry run)"
                    self.message_user(request, f"Formats saved: {names}.", messages.SUCCESS)
                    return redirect("admin:cards_format_changelist")
                if report.written and not report.errors:
                    self.message_user(request, report.summary(), messages.SUCCESS)
                    return redirect("admin:cards_card_changelist")
        else:
            form = ImportForm()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Import cards and leaders",
            "form": form,
            "report": report,
            "columns": importers.CSV_COLUMNS,
        }
        return TemplateResponse(request, "admin/cards/card/import.html", context)

    def export_view(self, request, game=None, fmt=None):
        if not self.has_view_permission(request):
            return redirect("admin:index")
        if game is None:
            context = {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": "Export cards and leaders",
                "games": [
                    (
                        g,
                        [
                            (f, reverse("admin:cards_card_export_file", args=[g.slug, f]))
                            for f in importers.FORMATS
                        ],
                    )
                    for g in Game.objects.order_by("name")
                ],
            }
            return TemplateResponse(request, "admin/cards/card/export.html", context)
        found = get_object_or_404(Game, slug=game)
        if fmt not in importers.FORMATS:
            return HttpResponse("Unknown format: use json or csv.", status=404)
        content_type = "application/json" if fmt == "json" else "text/csv"
        response = HttpResponse(
            importers.export_game(game=found, fmt=fmt),
            content_type=f"{content_type}; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{found.slug}.{fmt}"'
        return response


class LoyaltyInline(StaffCuratorMixin, admin.TabularInline):
    model = Loyalty
    extra = 0
    fields = ["faction", "points"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "faction":
            kwargs["queryset"] = Keyword.objects.filter(is_faction=True).select_related("game")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Leader)
class LeaderAdmin(StaffCuratorMixin, admin.ModelAdmin):
    form = LeaderAdminForm
    inlines = [LoyaltyInline, PrintingInline]
    list_display = ["name", "game", "colour_display", "faction_display"]
    list_select_related = ["game"]
    list_filter = ["game", "colours", FactionListFilter]
    search_fields = ["name", "text"]
    autocomplete_fields = ["keywords"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["art_shown", "created", "updated"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("colours", "keywords")

    @admin.display(description="art")
    def art_shown(self, leader):
        return art_preview(leader)

    @admin.display(description="matching colours")
    def colour_display(self, leader):
        return _names(leader.colour_list)

    @admin.display(description="factions")
    def faction_display(self, leader):
        return _names(leader.factions)


class ImportForm(forms.Form):
    file = forms.FileField(help_text="A .json or .csv file (see the formats below).")
    source = forms.ChoiceField(
        choices=[
            ("exchange", "This site's file (JSON or CSV)"),
            ("fowsim", "Force of Will community database (fowsim): cards or a ban list"),
        ],
        initial="exchange",
        required=False,
        help_text="What the file is.",
    )
    fmt = forms.ChoiceField(
        label="Format",
        required=False,
        choices=[("", "From the file name"), *((f, f.upper()) for f in importers.FORMATS)],
    )
    game = forms.ModelChoiceField(
        queryset=Game.objects.order_by("name"),
        required=False,
        to_field_name="slug",
        help_text="Needed for a CSV file without a game column; otherwise taken from the file "
        "(a fowsim file: Force of Will).",
    )
    dry_run = forms.BooleanField(
        required=False, initial=True, help_text="Only check the file and report: write nothing."
    )
    partial = forms.BooleanField(
        required=False,
        help_text="Write the good rows and list the bad ones (else a bad row stops the import).",
    )

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("file")
        if upload is None:
            return cleaned
        game = cleaned.get("game")
        try:
            if cleaned.get("source") == "fowsim":
                target = importers.resolve_game(
                    file_game=None, requested=game.slug if game else "force-of-will"
                )
                raw = upload.read()
                document = importers.load_json(raw.decode("utf-8-sig"))
                if importers.is_fowsim_banlist(document):
                    cleaned["banlist"] = document
                else:
                    cleaned["data"] = importers.read_fowsim(io.BytesIO(raw), game=target)
            else:
                cleaned["data"] = data = importers.read_file(upload, fmt=cleaned.get("fmt") or None)
                target = importers.resolve_game(
                    file_game=data.game, requested=game.slug if game else None
                )
        except UnicodeDecodeError:
            raise ValidationError("The file is not UTF-8 text.") from None
        except importers.ImportFileError as e:
            raise ValidationError(str(e)) from None
        cleaned["target"] = target
        return cleaned

    def run(self) -> importers.ImportReport | list[Format]:
        """The import's report, or the formats a ban list saved."""
        cleaned = self.cleaned_data
        if "banlist" in cleaned:
            if cleaned["dry_run"]:
                return []
            return importers.import_fowsim_banlist(
                game=cleaned["target"], document=cleaned["banlist"]
            )
        report = importers.import_records(
            game=cleaned["target"],
            dry_run=cleaned["dry_run"],
            partial=cleaned["partial"],
            **cleaned["data"].records(),
        )
        report.warnings = cleaned["data"].warnings
        return report


# --- the rules reference --------------------------------------------------------------------


@admin.register(RuleSection)
class RuleSectionAdmin(StaffCuratorMixin, admin.ModelAdmin):
    """Sections of a game's rules; the parent and depth follow from the number, the anchor is
    set once, and every save re-renders the game's sections (cross-links may appear)."""

    list_display = ["number", "display_title", "game", "updated", "obsolete_since"]
    list_display_links = ["number", "display_title"]
    list_filter = ["game", ("obsolete_since", admin.EmptyFieldListFilter)]
    list_select_related = ["game"]
    search_fields = ["number", "title", "body"]
    ordering = ["game", "sort_key"]
    readonly_fields = ["parent", "depth", "body_preview", "updated", "obsolete_since"]
    fields = [
        "game",
        "number",
        "title",
        "anchor",
        "body",
        "body_preview",
        "parent",
        "updated",
        "obsolete_since",
    ]

    def get_readonly_fields(self, request, obj=None):
        readonly = list(super().get_readonly_fields(request, obj))
        return [*readonly, "game", "anchor"] if obj else readonly

    @admin.display(description="title")
    def display_title(self, section):
        return section.display_title

    @admin.display(description="preview")
    def body_preview(self, section):
        # body_html is stored sanitised (cards.rulebook.render_markdown).
        return mark_safe(section.body_html) if section.body_html else "—"

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        services.rerender_sections(game=obj.game)

    def delete_model(self, request, obj):
        game = obj.game
        super().delete_model(request, obj)
        services.rerender_sections(game=game)


class GlossaryTermForm(forms.ModelForm):
    class Meta:
        model = GlossaryTerm
        fields = ["game", "term", "slug", "aliases", "definition", "section"]

    def clean(self):
        cleaned = super().clean()
        game, term = cleaned.get("game"), cleaned.get("term")
        if game and term:
            others = GlossaryTerm.objects.filter(game=game, term__iexact=term)
            if self.instance.pk:
                others = others.exclude(pk=self.instance.pk)
            if others.exists():
                self.add_error("term", f"{term!r} already exists in this game.")
        return cleaned


@admin.register(GlossaryTerm)
class GlossaryTermAdmin(StaffCuratorMixin, admin.ModelAdmin):
    form = GlossaryTermForm
    list_display = ["term", "game", "alias_display", "section"]
    list_filter = ["game"]
    list_select_related = ["game", "section"]
    search_fields = ["term", "slug", "definition"]
    autocomplete_fields = ["section"]
    prepopulated_fields = {"slug": ["term"]}
    readonly_fields = ["definition_preview"]

    @admin.display(description="aliases")
    def alias_display(self, term):
        return ", ".join(term.aliases or []) or "—"

    @admin.display(description="preview")
    def definition_preview(self, term):
        return mark_safe(term.definition_html) if term.definition_html else "—"

    def get_search_results(self, request, queryset, search_term):
        """Also find terms by alias, in any script: JSON text is not searchable the same way on
        every database (SQLite stores Russian escaped), so aliases are matched in Python."""
        results, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        needle = search_term.strip().casefold()
        if needle:
            by_alias = [
                pk
                for pk, aliases in queryset.values_list("pk", "aliases")
                if any(needle in str(alias).casefold() for alias in aliases or [])
            ]
            if by_alias:
                results = results | queryset.filter(pk__in=by_alias)
        return results, may_have_duplicates


@admin.register(Ruling)
class RulingAdmin(StaffCuratorMixin, admin.ModelAdmin):
    list_display = ["card", "question_display", "date", "game_display"]
    list_filter = ["card__game", "date"]
    list_select_related = ["card__game"]
    search_fields = ["question", "answer", "source", "card__name"]
    autocomplete_fields = ["card"]
    date_hierarchy = "date"
    fields = ["card", "date", "question", "answer", "source"]

    @admin.display(description="question")
    def question_display(self, ruling):
        return ruling.question if len(ruling.question) <= 80 else ruling.question[:79] + "…"

    @admin.display(description="game", ordering="card__game__name")
    def game_display(self, ruling):
        return ruling.card.game
