"""Provider adapters (OpenAI, Anthropic, Ollama, offline). They register through ``register_adapters``,
lazily: a provider's module, and its SDK, load only when it is used. ``base.py`` is the skeleton the
provider adapters are written on (and a plugin's can be: ``promptwire.plugin.ProviderAdapter``)."""
