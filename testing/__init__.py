"""Helpers for testing prompts and plugins: a fake provider speaking the providers' wire protocols
(:mod:`.provider_servers`, also a command: ``python -m promptwire.testing.provider_servers --port N``),
the ``prompt_snapshot`` pytest fixture (:mod:`.prompt_snapshot`), and the conversation conformance
corpus with the check an adapter runs against it (:mod:`.conformance`)."""
