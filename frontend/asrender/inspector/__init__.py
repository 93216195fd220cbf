"""``asrender serve``: a local page that shows every model call of a program in every format.

:mod:`.state` computes what the page shows (pure: a file in, JSON out), :mod:`.server` serves it on
127.0.0.1 with the standard library, ``page.html`` is the page itself (plain HTML, CSS and script,
no build step).
"""
