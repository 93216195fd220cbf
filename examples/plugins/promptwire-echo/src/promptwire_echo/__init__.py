"""promptwire-echo: a small, complete promptwire plugin to copy.

It registers one provider adapter (``echo``, which asks an echo server over HTTP) and one format
(``echo-flat``, the AgentScript layout in a single user message) through the ``promptwire``
entry-point group; see ``plugin.py``.
"""
