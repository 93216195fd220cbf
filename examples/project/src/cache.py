"""An in-memory cache, kept here as material for the code-review example."""

_entries = {}


def remember(key, value):
    # TODO: entries never expire
    _entries[key] = value


def recall(key):
    return _entries.get(key)  # FIXME: a stored None looks like a miss
