"""A small retry helper, kept here as material for the code-review example."""

import time


def with_retries(call, attempts=3, delay=0.5):
    # TODO: let callers pass which exceptions are worth a retry
    for attempt in range(attempts):
        try:
            return call()
        except Exception:
            if attempt == attempts - 1:
                raise
            # FIXME: the delay never grows; back off exponentially
            time.sleep(delay)
    return None
