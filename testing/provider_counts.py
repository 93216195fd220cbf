"""The fake provider's token-count endpoints (OpenAI Responses' ``POST /v1/responses/input_tokens``,
Anthropic's ``POST /v1/messages/count_tokens``), strict as the real ones: a body holding a field
the endpoint does not take (``max_tokens``, ``stream``, ``temperature``...) or lacking one it
requires is refused with a 400 in the provider's own error shape, so a test that gets a count
shows that the body promptwire derived is one the endpoint accepts.

The count is :func:`fake_count`: a function of the body's bytes (a quarter of their length), so a
test can assert the exact number from the body it expects. The field lists are written here from
each endpoint's reference, not taken from the adapters, so the two are checked against each other.
"""

from __future__ import annotations

from typing import Any

__all__ = ["COUNT_ROUTES", "count_answer", "fake_count"]

COUNT_ROUTES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # Responses input_tokens (API reference, "Get input token counts"): every field optional.
    "/v1/responses/input_tokens": (
        frozenset(
            {
                "model",
                "input",
                "instructions",
                "tools",
                "tool_choice",
                "parallel_tool_calls",
                "text",
                "reasoning",
                "truncation",
                "conversation",
                "previous_response_id",
                "personality",
            }
        ),
        frozenset(),
    ),
    # Messages count_tokens (API reference, "Count tokens in a Message"): model and messages required.
    "/v1/messages/count_tokens": (
        frozenset(
            {
                "model",
                "messages",
                "system",
                "tools",
                "tool_choice",
                "thinking",
                "output_config",
                "cache_control",
                "speed",
            }
        ),
        frozenset({"model", "messages"}),
    ),
}
"""Each count route's accepted body fields, and the fields it requires."""


def fake_count(raw: bytes) -> int:
    """The count the fake endpoints answer for a body of ``raw`` bytes: a quarter of its length."""
    return len(raw) // 4


def count_answer(route: str, body: dict[str, Any], raw: bytes) -> tuple[int, dict[str, Any]]:
    """The status and JSON body a count route answers ``body`` (sent as ``raw``) with."""
    accepted, required = COUNT_ROUTES[route]
    anthropic = route.startswith("/v1/messages")
    for field in body:
        if field not in accepted:
            if anthropic:
                return 400, _anthropic_error(f"{field}: Extra inputs are not permitted")
            return 400, _openai_error(f"Unknown parameter: '{field}'.", field, "unknown_parameter")
    for field in sorted(required - set(body)):
        if anthropic:
            return 400, _anthropic_error(f"{field}: Field required")
        return 400, _openai_error(f"Missing required parameter: '{field}'.", field, "missing_required_parameter")
    if anthropic:
        return 200, {"input_tokens": fake_count(raw)}
    return 200, {"object": "response.input_tokens", "input_tokens": fake_count(raw)}


def _anthropic_error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def _openai_error(message: str, param: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}
