"""Agently's own request build, with its own prompt generator and with promptwire's, side by side.

Run ``python benchmarks/agently_plugin.py [--rounds 15]`` from the repository root with
``agently==4.1.4.10`` installed. Each case is an Agently program's prompt built through Agently's
API (an agent's prompt, a session's history, an execution inheriting both, judgments, an
attachment...), twice: once with Agently's ``AgentlyPromptGenerator`` active and once after
``promptwire.renderers.agently.activate()``. What is timed is what Agently does for each request:

* ``body``: the model requester's ``generate_request_data()`` (OpenAI chat, OpenAI Responses,
  Anthropic), which renders the prompt (``to_messages``) and assembles the request;
* ``parser``: what the response parser reads from the prompt for each request
  (``to_prompt_object()``, and ``to_output_model()`` when the output is structured);
* ``generator only``: the part of ``body`` the generator does, ``to_messages()`` as the chat
  requester calls it (the rest of ``body`` is Agently's own requester, the same on both sides).

Before timing, each case's request data and prompt object are checked equal on both sides. The two
sides alternate round by round and each figure is the median over the rounds (the machine may be
shared); the ratio is Agently's time over promptwire's, the whole request build included (Agently's
own work around the generator counts on both sides).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agently_render import interleaved_medians

import promptwire.renderers.agently as promptwire_agently

REQUESTERS = ("OpenAICompatible", "OpenAIResponsesCompatible", "AnthropicCompatible")
CLOCK = "2024-01-01 00:00:00 Monday"
STRUCTURED = ("json", "hybrid", "xml_field", "yaml_literal", "flat_markdown")


def _cases() -> dict[str, Callable[[], Any]]:
    """Each case builds the prompt of an execution, as an Agently program does."""
    from agently import Agently
    from agently.types.data.judgment import Choice, Probability, Score

    def agent(requester: str = "OpenAICompatible") -> Any:
        made = Agently.create_agent()
        made.set_settings("plugins.ModelRequester.activate", requester)
        made.set_settings(requester, {"base_url": "http://127.0.0.1:9/v1", "model": "m", "auth": "k"})
        return made

    def hello() -> Any:
        return (
            agent()
            .input("Hello")
            .instruct("reply something")
            .info("I'm a human")
            .output({"thinking": (str, "how will you reply?"), "reply": (str, "your final reply")})
        )

    def session() -> Any:
        made = agent()
        made.activate_session()
        made.set_agent_prompt("system", "You are a support agent.")
        made.set_chat_history(
            [
                {"role": "user", "content": "My order is late."},
                {"role": "assistant", "content": "What is the order number?"},
                {"role": "user", "content": [{"type": "text", "text": "It is T-42."}]},
                {"role": "assistant", "content": "Thanks, looking it up."},
            ]
            * 5
        )
        return made.input("Any news?").info({"order": "T-42", "status": "shipped"})

    def inherited() -> Any:
        made = agent()
        made.set_agent_prompt("system", "You are terse.")
        made.set_agent_prompt("developer", {"style": "plain", "limits": ["no lists"]})
        made.set_agent_prompt("info", {"user": "Ada", "city": "Chengdu"})
        made.set_agent_prompt("instruct", ["answer", "cite ${INFO.city}"])
        return made.input({"question": "Weather?", "days": 3}).output(
            {"answer": (str, "the answer", True), "sources": [(str, "url")]}
        )

    def judgments() -> Any:
        return (
            agent()
            .input("Is the review positive?")
            .output(
                {
                    "positive": Probability("Is the review positive?"),
                    "topic": Choice("Main topic?", options={"price": None, "quality": "build", "service": None}),
                    "stars": Score("Stars?", options=["1", "2", "3", "4", "5"]),
                    "reply": (str, "a reply to the reviewer"),
                }
            )
        )

    def hybrid() -> Any:
        execution = (
            agent()
            .input("Plan the launch.")
            .output({"title": (str, "plan title"), "steps": [{"name": (str, "step"), "done": (bool,)}]})
        )
        execution.request.prompt.set("output_format", "hybrid")
        return execution

    def attachment() -> Any:
        return (
            agent()
            .input("What is in it?")
            .attachment([{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}])
        )

    return {
        "hello": hello,
        "session (20 turns)": session,
        "agent prompt inherited": inherited,
        "judgments": judgments,
        "hybrid": hybrid,
        "attachment": attachment,
    }


def _body(requester: type, prompt: Any) -> Callable[[], Any]:
    return lambda: requester(prompt, prompt.settings).generate_request_data().data


def _generator(prompt: Any) -> Callable[[], Any]:
    """The generator's own part of a chat request: ``to_messages`` as the chat requester calls it."""
    return lambda: prompt.to_messages(rich_content=False, strict_role_orders=True)


def _parser(prompt: Any) -> Callable[[], Any]:
    def run() -> Any:
        prompt_object = prompt.to_prompt_object()
        model = prompt.to_output_model() if prompt_object.output_format in STRUCTURED else None
        # repr: a judgment's annotation holds a fresh FieldInfo each time, and FieldInfo has no equality
        return repr(prompt_object.model_dump()), model

    return run


def rows(rounds: int) -> list[tuple[str, float, float]]:
    """``(what, Agently's seconds, promptwire's seconds)`` per case and step."""
    from agently import Agently
    from agently.utils import TimeInfo

    TimeInfo.get_current_time = staticmethod(lambda: CLOCK)  # type: ignore[method-assign]
    requesters = {name: Agently.plugin_manager.get_plugin("ModelRequester", name) for name in REQUESTERS}
    found: list[tuple[str, float, float]] = []
    for name, build in _cases().items():
        promptwire_agently.deactivate()
        theirs = build().request.prompt
        promptwire_agently.activate()
        mine = build().request.prompt
        promptwire_agently.deactivate()
        steps = {f"{name}: body {short}": (_body(cls, theirs), _body(cls, mine)) for short, cls in _short(requesters)}
        steps[f"{name}: parser"] = (_parser(theirs), _parser(mine))
        steps[f"{name}: generator only"] = (_generator(theirs), _generator(mine))
        for what, (their_run, my_run) in steps.items():
            expected, actual = their_run(), my_run()
            if what.endswith("parser"):
                expected, actual = expected[0], actual[0]  # the output models are checked by the tests
            if expected != actual:
                raise SystemExit(f"output differs: {what}")
            their_time, my_time = interleaved_medians([their_run, my_run], rounds)
            found.append((what, their_time, my_time))
    return found


def _short(requesters: dict[str, Any]) -> list[tuple[str, Any]]:
    names = {"OpenAICompatible": "chat", "OpenAIResponsesCompatible": "responses", "AnthropicCompatible": "anthropic"}
    return [(names[name], cls) for name, cls in requesters.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15)")
    args = parser.parse_args()
    try:
        import agently  # noqa: F401
    except ImportError:
        raise SystemExit("agently is not installed: pip install agently==4.1.4.10") from None
    warnings.simplefilter("ignore")
    found = rows(args.rounds)
    print(f"{'what':<46}{'Agently':>12}{'promptwire':>12}{'ratio':>9}")
    for what, theirs, mine in found:
        print(f"{what:<46}{theirs * 1e6:9.1f} us{mine * 1e6:9.1f} us{theirs / mine:8.1f}x")
    ratios = [theirs / mine for _, theirs, mine in found]
    bodies = [theirs / mine for what, theirs, mine in found if ": body " in what]
    generator = [theirs / mine for what, theirs, mine in found if what.endswith("generator only")]
    print(f"median ratio, request bodies: {statistics.median(bodies):.1f}x (lowest {min(bodies):.1f}x)")
    print(f"median ratio, generator only: {statistics.median(generator):.1f}x (lowest {min(generator):.1f}x)")
    print(f"median ratio, every step:     {statistics.median(ratios):.1f}x (lowest {min(ratios):.1f}x)")


if __name__ == "__main__":
    main()
