"""The API's one parser: DRF's JSON parser, refusing with a 400 what would otherwise reach the
code as a 500 (a RecursionError) or the database as an error it cannot store."""

import io

from rest_framework import parsers
from rest_framework.exceptions import ParseError

from cards.text import MAX_DEPTH, problem


def surely_fine(raw: bytes) -> bool:
    """Whether a JSON document of these bytes has none of problem()'s problems, by its bytes:
    no escape (a NUL or a lone surrogate can only come from one: raw control characters are not
    JSON, and the bytes are UTF-8) and fewer brackets than MAX_DEPTH. Most bodies are."""
    return b"\\u" not in raw and raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read()
        try:
            data = super().parse(io.BytesIO(raw), media_type, parser_context)
        except RecursionError:  # Python's parser gives up near 1,000 levels
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels.") from None
        if not surely_fine(raw) and (message := problem(data)) is not None:
            raise ParseError(f"JSON parse error - {message}")
        return data
