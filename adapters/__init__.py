"""Provider adapters (OpenAI, Anthropic, Ollama, offline). They register through ``register_adapters``.

The adapters arrive with their own issue; the hook and the registry already exist so that third
parties can target them.
"""
