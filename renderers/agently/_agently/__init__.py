"""Agently 4.1.4.10, reproduced byte for byte: the clone behind ``AgentlyPrompt`` (internal).

Each module mirrors a part of upstream agently (``builtins/plugins/PromptGenerator/...`` unless
said otherwise), so a difference from Agently is looked for in one place:

* ``prompt``: ``AgentlyPromptGenerator``'s seven public methods, as :class:`AgentlyPrompt`;
* ``prompt_object``: ``to_prompt_object()``, read without pydantic where the shape is plain;
  ``model``: the pydantic ``PromptModel`` it mirrors (``types/data/prompt.py``);
* ``layout``: ``_generate_main_prompt``, ``to_text`` and ``to_messages``;
* ``output_block``: the ``[OUTPUT REQUIREMENT]`` block of each output format;
* ``output_model``: ``to_output_model``;
* ``declarations``: ``modules/output_contract.py`` (tuples, pydantic models, JSON Schema);
* ``storage``: ``StateData`` and ``Settings`` (``utils/Settings.py``);
* ``sanitize``: ``utils/DataFormatter.sanitize``; ``slots``: slot references in text;
  ``yaml_blocks``: the section bodies, as ``yaml.safe_dump`` writes them, without its cost;
* ``errors``: promptwire's own: named errors where Agently crashes, Agently's warnings;
* ``native``: Agently's own objects in the data (chat messages, content parts, judgments,
  ``StateData``), recognised without importing Agently.

The bridge to the core ``Prompt`` is outside this package: ``renderer.py`` and ``reader.py``.
"""
