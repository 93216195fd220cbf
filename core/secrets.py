"""Keys and passwords that no message may print, and the one function that takes them out: :func:`mask`.

A message about a failed call quotes what the provider answered and names the URL it called, since
that is what a person needs to fix it, and either may hold a secret: a proxy echoes the
``Authorization`` header back, an HTTP library quotes the header value it refused, a base URL
carries a password (``https://user:pass@host/v1``), a model repeats a key it was shown. So every
piece of text that comes from outside (a provider's body, an exception's words, a model's reply)
goes through :func:`mask` on its way into a message, and every URL through :func:`shown_url`.

The secrets are:

* the values of the environment variables declared as keys (:func:`declare_secret_variables`: the
  adapters declare ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``OLLAMA_API_KEY`` and each
  adapter class's ``key_variable``), read when a message is made;
* the password in the value of each variable declared as a URL (``OPENAI_BASE_URL``...;
  :func:`declare_url_variables`), or its user name when it has no password
  (``https://TOKEN@host``);
* for the code inside ``with extra_secrets(...)``, the values given: an adapter's own key and the
  password of the URL it calls, a tool's URL.

A secret is matched with the whitespace around it trimmed (a key file's last newline), in every
form a message may spell it: as it is, with its whitespace runs collapsed, escaped as Python's
``repr`` or JSON writes it (``sk-a\\nb``, ``\\u00e9``), as UTF-8 bytes' ``repr`` (``\\xc3\\xa9``)
and percent-encoded. A secret of at least :data:`MIN_MASKED_CHARS` characters is replaced by
``***`` wherever it occurs, inside longer words too. A shorter one cannot be told from ordinary
text: replacing each ``ab`` in a message would garble it and point at the key's letters, so a text
that holds a short secret is withheld whole (:data:`WITHHELD`). Real API keys are 30 characters
and more; a test key like ``x`` withholds most provider text.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import re
import threading
from contextvars import ContextVar
from urllib.parse import quote, quote_plus, unquote

__all__ = [
    "MASK",
    "MIN_MASKED_CHARS",
    "WITHHELD",
    "configured_secrets",
    "declare_secret_variables",
    "declare_url_variables",
    "extra_secrets",
    "mask",
    "shown_url",
    "url_secrets",
]

MASK = "***"
"""What a secret of :data:`MIN_MASKED_CHARS` characters or more is replaced by."""
MIN_MASKED_CHARS = 8
"""The shortest secret masked in place; a text holding a shorter one is withheld whole."""
WITHHELD = "[withheld: it holds a configured secret]"
"""What a text holding a secret shorter than :data:`MIN_MASKED_CHARS` is replaced by."""

_lock = threading.Lock()
_key_variables: dict[str, None] = {}  # an ordered set: names whose values are secrets
_url_variables: dict[str, None] = {}  # names whose values are URLs that may carry a password
_extra: ContextVar[tuple[str, ...]] = ContextVar("promptwire_extra_secrets", default=())


@functools.cache
def _userinfo() -> re.Pattern[str]:
    """A URL's user and password: everything of its authority up to the last ``@``, as ``urlsplit``
    reads it (a password written with a raw ``@`` still counts as one). Compiled when first asked
    for: a run that shows no URL never needs it."""
    return re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:)?//([^/?#]*)@")


def declare_secret_variables(*names: str) -> None:
    """Count the values of the environment variables ``names`` as secrets from now on."""
    with _lock:
        _key_variables.update(dict.fromkeys(names))


def declare_url_variables(*names: str) -> None:
    """Count the passwords in the URLs the environment variables ``names`` hold as secrets."""
    with _lock:
        _url_variables.update(dict.fromkeys(names))


def extra_secrets(*values: str | None) -> contextlib.AbstractContextManager[None]:
    """Mask ``values`` too in every message made inside the block (in this thread or task). With
    no value to add (an adapter without a key, sending to a URL without a password: every call of
    most runs), the block changes nothing and costs nothing."""
    given = tuple(filter(None, values))
    return _Masked(given) if given else _NOTHING_ADDED


class _Masked:
    """The block of :func:`extra_secrets` that adds ``given``: a class, not a generator's context
    manager, which costs about 8,000 instructions more, and every model call enters one."""

    __slots__ = ("before", "given", "token")

    def __init__(self, given: tuple[str, ...]) -> None:
        self.given = given

    def __enter__(self) -> None:
        self.before = _extra.get()
        self.token = _extra.set(self.before + self.given)

    def __exit__(self, *_: object) -> None:
        try:
            _extra.reset(self.token)
        except ValueError:  # a generator's block, closed from another context (a loop's finaliser)
            _extra.set(self.before)


_NOTHING_ADDED = contextlib.nullcontext()


@functools.lru_cache(maxsize=64)
def url_secrets(url: str | None) -> tuple[str, ...]:
    """The secret of a URL's user information: its password as written and decoded, or, with no
    password, its user name (``https://TOKEN@host`` carries a token there); and the Basic
    ``Authorization`` credential an HTTP client makes of it (base64 of ``user:password``). Kept per
    URL: every call asks it of its endpoint's URL, twice (about 4,000 instructions of matching each
    time, for the few URLs a run sends to)."""
    if not url or "@" not in url:  # no user information (the pattern ends in one): nothing to match
        return ()
    match = _userinfo().match(url)
    if match is None:
        return ()
    user, colon, password = match.group(2).partition(":")
    secret = password if colon else user
    forms = [secret, unquote(secret)]
    # HTTP clients (httpx) send a URL's user information as a Basic Authorization header, and a
    # server that echoes it in an error would print the password base64-encoded: mask that too.
    for pair in (f"{unquote(user)}:{unquote(password)}", f"{user}:{password}"):
        forms.append(base64.b64encode(pair.encode("utf-8")).decode("ascii"))
    return tuple(dict.fromkeys(form for form in forms if form.strip()))


def configured_secrets() -> tuple[str, ...]:
    """Every secret known now: the declared variables' values and URL passwords, and the extras."""
    with _lock:
        keys, urls = tuple(_key_variables), tuple(_url_variables)
    found = [value for name in keys if (value := os.environ.get(name))]
    for name in urls:
        found.extend(url_secrets(os.environ.get(name)))
    found.extend(_extra.get())
    return tuple(dict.fromkeys(found))


def mask(text: str, *more: str | None) -> str:
    """``text`` with every secret (:func:`configured_secrets`, and ``more``) taken out: replaced by
    ``***`` in each of its spellings, or the whole text :data:`WITHHELD` when it holds a secret too
    short to mask in place (see the module's docstring)."""
    secrets = [secret for secret in (*configured_secrets(), *more) if secret and secret.strip()]
    if not secrets or not text:
        return text
    long_forms: set[str] = set()
    for secret in secrets:
        forms = _spellings(secret.strip())
        if len(secret.strip()) >= MIN_MASKED_CHARS:
            long_forms.update(forms)
        elif any(form in text for form in forms):
            return WITHHELD
    spellings = sorted(long_forms, key=len, reverse=True)  # a longer spelling may hold a shorter one
    while any(form in text for form in spellings):  # a mask next to a secret's stars may form one anew
        for form in spellings:
            text = text.replace(form, MASK)
    return text


def shown_url(url: str, *more: str | None) -> str:
    """``url`` as a message may show it: its user and password written ``***``
    (``https://***@host/v1``), and any secret elsewhere in it (a key in the query) masked."""
    return mask(_userinfo().sub(lambda match: f"{match.group(1) or ''}//{MASK}@", url, count=1), *more)


def _spellings(secret: str) -> set[str]:
    """The ways a message may write ``secret``: see the module's docstring."""
    forms = {
        secret,
        " ".join(secret.split()),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        repr(secret.encode("utf-8", "surrogatepass"))[2:-1],
        quote(secret, safe=""),
        quote_plus(secret, safe=""),
    }
    forms.discard("")
    return forms
