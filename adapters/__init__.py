"""Provider adapters (OpenAI, Anthropic, Ollama, offline). They register through ``register_adapters``,
lazily: a provider's module, and its SDK, load only when it is used."""
