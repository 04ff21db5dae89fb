"""The API's one parser: DRF's JSON parser, refusing with a 400 what would otherwise reach the
code as a 500 (a RecursionError) or the database as an error it cannot store."""

import io

from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 32  # no body of this API nests more than a few levels


def problem(data) -> str | None:
    """What is wrong with parsed JSON, or None: too deep, a NUL character (PostgreSQL cannot
    store one), or a lone surrogate such as "\\ud800" (UTF-8 cannot encode one). Iterative:
    the document may be deep."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels."
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                stack += [(key, depth), (item, depth + 1)]
        elif isinstance(value, str):
            if "\x00" in value:
                return "NUL characters (\\u0000) are not allowed in strings."
            try:
                value.encode()
            except UnicodeEncodeError:
                return "Unpaired surrogates (\\ud800-\\udfff) are not allowed in strings."
    return None


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
