"""Agently 4.1.4.10's prompt generator, reproduced: the clone behind ``AgentlyPrompt``."""
