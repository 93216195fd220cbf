"""``python -m promptwire`` is ``asrender``."""

from .frontend.asrender.cli import console

raise SystemExit(console())
