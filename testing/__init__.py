"""Helpers for testing prompts and plugins: a fake provider speaking the providers' wire protocols
(:mod:`.provider_servers`) and the ``prompt_snapshot`` pytest fixture (:mod:`.prompt_snapshot`)."""
