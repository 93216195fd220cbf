"""The providers' batch files: requests written for a batch API instead of sent, and the results
file read back, each entry as the reply (or failure) a live call would have given.

* OpenAI's Batch API takes JSONL, a request a line: ``{"custom_id", "method": "POST", "url":
  "/v1/chat/completions" (or "/v1/responses"), "body"}``; its output and error files hold
  ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``, an expired
  or cancelled request with ``error.code`` ``batch_expired`` or ``batch_cancelled``.
* Anthropic's Message Batches take ``{"custom_id", "params"}`` a request (written here as JSONL,
  a request a line, for ``client.messages.batches.create(requests=...)``); its results are
  ``{"custom_id", "result": {"type": "succeeded", "message"} | {"type": "errored", "error"} |
  {"type": "canceled"} | {"type": "expired"}}``.

Each body is the adapter's own request (``build_request``) written as a live call sends it
(:func:`promptwire.core.json_text.to_bytes`), so a batch asks exactly what a live run would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ..core.call import ProviderRequest
from ..core.errors import PromptwireError, ProviderError
from ..core.json_text import dumps, to_bytes
from .status import status_error, status_of_kind, unchecked_reply

__all__ = ["KINDS", "Answer", "BatchResultsError", "check_adapter", "read_results", "reply_object", "request_line"]

Kind = Literal["openai", "anthropic"]
KINDS: dict[str, tuple[str, ...]] = {"openai": ("openai", "openai-responses"), "anthropic": ("anthropic",)}
"""Each batch API and the adapters whose requests it takes."""

_URLS = {"openai": "/v1/chat/completions", "openai-responses": "/v1/responses"}


class BatchResultsError(PromptwireError):
    """A results file that is not one: the message names the file and the line."""


@dataclass(frozen=True, slots=True)
class Answer:
    """One entry of a results file: the reply's JSON body, or the failure, or (``unanswered``) a
    request that expired or was cancelled before it ran, which goes again in the next round."""

    body: dict[str, Any] | None = None
    failure: ProviderError | None = None
    unanswered: str | None = None


def check_adapter(kind: str, adapter: str) -> None:
    """Refuse an adapter whose requests the batch API ``kind`` does not take."""
    if adapter not in KINDS[kind]:
        takes = " or ".join(KINDS[kind])
        raise PromptwireError(f"a {kind} batch file takes {takes} requests, not {adapter}'s")


def request_line(kind: str, adapter: str, custom_id: str, request: ProviderRequest) -> bytes:
    """The line of the batch file that asks ``request``: its body the bytes a live call sends."""
    body = to_bytes(request.kwargs)
    head = dumps({"custom_id": custom_id}, separators=(",", ":"))[:-1]
    if kind == "anthropic":
        return head.encode() + b',"params":' + body + b"}\n"
    url = dumps(_URLS[adapter])
    return head.encode() + f',"method":"POST","url":{url},"body":'.encode() + body + b"}\n"


def read_results(kind: str, path: str) -> Iterator[tuple[str, Answer]]:
    """Each entry of a results file (OpenAI's output or error file, Anthropic's results): its
    ``custom_id`` and what it says."""
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed by the generator's end or its close()
    except OSError as exc:
        raise BatchResultsError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with stream:
        for number, raw in enumerate(stream, 1):
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
                custom_id = entry["custom_id"]
                answer = _anthropic(entry["result"]) if kind == "anthropic" else _openai(entry)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                reason = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
                raise BatchResultsError(f"{path}:{number}: not a {kind} batch result ({reason})") from None
            if not isinstance(custom_id, str):
                raise BatchResultsError(f"{path}:{number}: custom_id must be text")
            yield custom_id, answer


def _openai(entry: dict[str, Any]) -> Answer:
    error = entry.get("error")
    if error:
        code = error.get("code")
        if code in ("batch_expired", "batch_cancelled"):
            return Answer(unanswered=code.removeprefix("batch_"))
        return Answer(failure=status_error(status_of_kind(code), dumps(error), code=code, provider="openai"))
    response = entry["response"]
    status, body = response["status_code"], response["body"]
    if status != 200:
        text = body if isinstance(body, str) else dumps(body.get("error", body))
        code = body.get("error", {}).get("code") if isinstance(body, dict) else None
        return Answer(failure=status_error(status, text, code=code, provider="openai"))
    if not isinstance(body, dict):
        raise TypeError("response.body must be an object")
    return Answer(body=body)


def _anthropic(result: dict[str, Any]) -> Answer:
    kind = result["type"]
    if kind == "succeeded":
        message = result["message"]
        if not isinstance(message, dict):
            raise TypeError("result.message must be an object")
        return Answer(body=message)
    if kind in ("expired", "canceled"):
        return Answer(unanswered=kind)
    if kind == "errored":
        error = result["error"].get("error", result["error"])
        status = status_of_kind(error.get("type"))
        return Answer(failure=status_error(status, dumps(error), code=error.get("type"), provider="anthropic"))
    raise ValueError(f"unknown result type {kind!r}")


def reply_object(adapter: str, body: dict[str, Any]) -> Any:
    """A reply's JSON body as the SDK object its adapter reads (what a live call returns)."""
    if adapter == "anthropic":
        import anthropic

        return unchecked_reply(anthropic.types.Message, body)
    if adapter == "openai-responses":
        from openai.types.responses import Response

        return unchecked_reply(Response, body)
    from openai.types.chat import ChatCompletion

    return unchecked_reply(ChatCompletion, body)
