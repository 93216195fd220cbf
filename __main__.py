"""``python -m promptwire`` is ``asrender``."""

from .frontend.asrender.cli import main

raise SystemExit(main())
