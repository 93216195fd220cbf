"""``echo-flat``: the AgentScript layout with the system text folded into the user message, for
models that take no system role. Building on a built-in format keeps its exact bytes and its
warnings for fields it cannot express."""

from __future__ import annotations

from dataclasses import replace

from promptwire.plugin import Message, Prompt, RenderedPrompt, builtin_renderer

AGENTSCRIPT = builtin_renderer("agentscript")  # loaded when it first renders


class FlatRenderer:
    name = "echo-flat"
    description = "AgentScript layout in one user message: the system text, a blank line, the user text"

    @property
    def fields(self) -> frozenset[str]:
        return AGENTSCRIPT.fields

    def render(self, prompt: Prompt, *, strict: bool = False) -> RenderedPrompt:
        layered = AGENTSCRIPT.render(prompt, strict=strict)
        texts = [str(message.content) for message in layered.messages]
        return replace(layered, format=self.name, messages=(Message("user", "\n\n".join(texts)),))
