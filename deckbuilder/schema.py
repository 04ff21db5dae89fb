"""The OpenAPI schema's error responses, described once for every operation: this AutoSchema
(DEFAULT_SCHEMA_CLASS) adds each error an operation can answer, judged from what the operation
is (its method, parameters, body, authentication, throttles), unless the view describes that
status itself. Errors are `{"code", "detail"}` (deckbuilder.api_errors), or DRF's field errors
for a 400."""

from functools import cache

from django.db import models
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import permissions, serializers


@cache
def error_serializer() -> type[serializers.Serializer]:
    """The `Error` component. Made on first use: DRF loads this module while deckbuilder.api,
    whose ProblemSerializer it names, is still loading."""
    from .api import ProblemSerializer

    class ErrorSerializer(serializers.Serializer):
        code = serializers.CharField(help_text="Machine-readable: `not_found`, `deck_not_legal`…")
        detail = serializers.CharField(help_text="What went wrong, in words.")
        problems = ProblemSerializer(
            many=True, required=False, help_text="With `deck_not_legal`: why it is not legal."
        )

    return ErrorSerializer


# DRF's field errors: {"field": ["message"]}, nested as the input is ({"cards": [{...}]}).
FIELD_ERRORS = {
    "type": "object",
    "description": 'Field errors: `{"field": ["message", ...]}`, nested as the input is.',
    "additionalProperties": {"anyOf": [{"type": "array"}, {"type": "object"}]},
}

RETRY_AFTER = {
    "description": "Seconds to wait before trying again.",
    "schema": {"type": "integer"},
}

# status: (component name, description)
ERRORS = {
    400: (
        "BadRequest",
        "Bad input: field errors, or an error with a `code` (a body that is not JSON, nested "
        "too deep or holding NUL characters; a NUL in the address; `deck_not_legal`).",
    ),
    401: ("Unauthorized", "Credentials are missing where required, or the token is wrong."),
    403: ("Forbidden", "Not allowed: not staff, not the owner, or no CSRF token with a session."),
    404: ("NotFound", "No such object, or no such page of the list."),
    409: ("Conflict", "In use (a card or leader in decks): it cannot be deleted."),
    412: ("PreconditionFailed", "`If-Match` names a version that is no longer current."),
    413: ("ContentTooLarge", "The body is larger than the server accepts."),
    415: ("UnsupportedMediaType", "The body is not `application/json`."),
    429: ("TooManyRequests", "Too many requests: wait as `Retry-After` says."),
    503: ("ServiceUnavailable", "The database is not answering: try again later."),
}


def _protected(view) -> bool:
    """Whether rows of other models may protect the view's objects from deletion (a card in
    decks): deleting one may answer 409."""
    model = getattr(getattr(view, "queryset", None), "model", None)
    return model is not None and any(
        getattr(rel, "on_delete", None) in (models.PROTECT, models.RESTRICT)
        for rel in model._meta.related_objects
    )


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation["responses"]
        # A view lists an error it answers that nothing here can infer as `{429: None}`
        # (a response without a body): the shared component describes it.
        named = {
            int(s)
            for s, r in responses.items()
            if s.isdigit() and int(s) in ERRORS and "content" not in r
        }
        for status in sorted(named | set(self._error_statuses(operation))):
            if status in named or str(status) not in responses:
                responses[str(status)] = self._error_response(status)
        return operation

    def _error_statuses(self, operation) -> list[int]:
        params = operation.get("parameters", [])
        where = {p["in"] for p in params}
        names = {(p["in"], p["name"].lower()) for p in params}
        body = "requestBody" in operation
        authenticates = bool(self.view.get_authenticators())
        statuses = [400, 503]  # any address may hold a NUL; any request may find the database down
        if authenticates:  # a bad token is refused wherever one is read
            statuses.append(401)
            if self.method not in permissions.SAFE_METHODS:  # permissions and CSRF
                statuses.append(403)
        if "path" in where or ("query", "page") in names:
            statuses.append(404)
        if ("header", "if-match") in names:
            statuses.append(412)
        if body:
            statuses += [413, 415]
        if self.method == "DELETE" and _protected(self.view):
            statuses.append(409)
        if self.view.get_throttles():
            statuses.append(429)
        return statuses

    def _error_response(self, status: int) -> dict:
        """A reference to the shared response component of `status`, registered once."""
        name, description = ERRORS[status]
        error = self.resolve_serializer(error_serializer(), "response").ref
        if status == 400:
            field_errors = ResolvedComponent(
                name="FieldErrors",
                type=ResolvedComponent.SCHEMA,
                schema=FIELD_ERRORS,
                object="FieldErrors",
            )
            self.registry.register_on_missing(field_errors)
            error = {"anyOf": [error, field_errors.ref]}
        response = {"description": description, "content": {"application/json": {"schema": error}}}
        if status in (429, 503):
            response["headers"] = {"Retry-After": {**RETRY_AFTER, "required": status == 503}}
        component = ResolvedComponent(
            name=name, type=ResolvedComponent.RESPONSE, schema=response, object=name
        )
        self.registry.register_on_missing(component)
        return component.ref
