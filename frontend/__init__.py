"""Front end: the ``asrender`` command (and, with its issue, the AgentScript lexer, parser and interpreter)."""
