"""Words a template puts around a name: `{{ game.name|article }} {{ game.name }}` reads
"an Irdya card game", "a Card of Gods"."""

from django import template

from cards import text

register = template.Library()
register.filter("article", text.article)
