"""One model call, and everything that stands around it: the attempt loop and its drivers
(:mod:`.generate`), the links a call passes through (:mod:`.links`: record and replay, rate limits,
dry runs, the event-loop bridge), where a call goes (:mod:`.routing`) and who watches it
(:mod:`.watch`, :mod:`.telemetry`).

Below it lies the data (``promptwire.core``, :mod:`promptwire.core.call` for a call's records) and
the providers (``promptwire.adapters``); above it, the languages that make calls and the runs
(``promptwire.runs``) that the library and the command line share.
"""
