"""``echo``: a provider adapter that speaks a tiny HTTP protocol, the shape of a real one.

``POST {ECHO_URL}/echo`` with ``{"model", "messages", "schema"?}`` answers
``{"text": ..., "usage": {...}}``. ``build_request`` is pure (a dry run prints it), ``send`` makes
the one HTTP call of an attempt (promptwire's ``attempts`` is the only retry loop) and turns every
failure into the :class:`ProviderError` subclass that says what went wrong, ``parse_reply`` reads
the answer.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

from promptwire import GenerateConfig, OutputContract, RenderedPrompt
from promptwire.adapters.status import status_error
from promptwire.core.errors import MalformedResponseError, ProviderConnectionError, ProviderTimeoutError
from promptwire.core.generate import ProviderRequest, Reply

DEFAULT_URL = "http://127.0.0.1:8765"


class EchoAdapter:
    name = "echo"
    description = "Echo server over HTTP (ECHO_URL, default http://127.0.0.1:8765)"

    def __init__(self, url: str | None = None) -> None:
        self.url = url

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        notes = []
        body: dict[str, Any] = {"model": model or "echo", "messages": [m.to_dict() for m in rendered.messages]}
        if contract is not None:
            body["schema"] = contract.json_schema
        if config.temperature is not None:
            notes.append(f"temperature {config.temperature} dropped: the echo server does not sample")
        return ProviderRequest(body, tuple(notes), endpoint=self._url())

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        url = (request.endpoint or self._url()) + "/echo"
        data = json.dumps(dict(request.kwargs)).encode()
        post = urllib.request.Request(url, data, {"content-type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(post, timeout=timeout or 60) as answer:
                text = answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            raise status_error(exc.code, exc.read(300).decode("utf-8", "replace")) from None
        except TimeoutError:
            raise ProviderTimeoutError(f"no answer from {url} in time") from None
        except (urllib.error.URLError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ProviderConnectionError(f"cannot reach {url}: {reason}") from None
        try:
            raw = json.loads(text)
        except ValueError:
            raise MalformedResponseError(f"not JSON: {text[:80]!r}", status=200) from None
        if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
            raise MalformedResponseError(f"no text in the answer: {text[:80]!r}", status=200)
        return raw

    def parse_reply(self, raw: Any) -> Reply:
        return Reply(text=raw["text"], raw=raw, usage=raw.get("usage"), finish_reason="stop")

    def _url(self) -> str:
        return (self.url or os.environ.get("ECHO_URL") or DEFAULT_URL).rstrip("/")
