"""The model name in an AgentScript model URI (``openai://gpt-4.1-mini``), for the adapters whose
URI names only a model (Ollama's also names a host: see ``adapters/ollama.py``)."""

from __future__ import annotations

from urllib.parse import unquote

from ..core.errors import BadRequestError

__all__ = ["model_name"]


def model_name(model: str | None, protocol: str) -> str:
    """``<protocol>://NAME`` -> ``NAME`` (percent-decoded, query and fragment ignored); a bare name
    is taken as it is. Another protocol or an empty name is refused with the reference's words."""
    if not model:
        raise BadRequestError(f"{protocol} URI must include a model name")
    if "://" not in model:
        return model
    given, _, rest = model.partition("://")
    name = unquote(rest.split("?", 1)[0].split("#", 1)[0])
    if given != protocol or not name:
        raise BadRequestError(f"{given} URI must include a model name")
    return name
