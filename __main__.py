"""``python -m promptwire`` is ``asrender``."""

from .frontend.cli import main

raise SystemExit(main())
