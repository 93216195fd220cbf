"""Readers of each provider's own request format into the prompt model (``--from openai-chat``...).

One module per provider, each a reader object (``name``, ``description``, ``read(data) -> Prompt``)
registered lazily in ``plugins/builtins.py``. They read plain data (parsed JSON or YAML), never a
provider's SDK objects, so none imports an SDK; what they share is in :mod:`.common`.
"""
