"""``python -m promptwire`` never runs code from the folder it is started in.

``python -m`` puts the current folder first on ``sys.path`` before it imports the package, so in
someone else's folder an ``argparse.py`` or ``typing.py`` there would be imported in place of the
standard library's, and a ``*.dist-info`` there would announce a plugin that ``asrender plugins``
loads. (The ``asrender`` script is not affected: a script's folder, not the current one, comes
first.) Imported first by the package's ``__init__``, before any module that is not loaded at
start-up: while ``-m`` locates the package (``sys.argv[0]`` is then ``"-m"``) the current folder's
entry is taken off ``sys.path``. Only ``os`` and ``sys`` are used, both loaded before any ``-m``.
"""

import os
import sys

_LOCATED_BY_DASH_M = sys.argv[:1] == ["-m"] and bool(sys.path) and not sys.flags.safe_path
if _LOCATED_BY_DASH_M and (sys.path[0] in ("", os.curdir) or os.path.abspath(sys.path[0]) == os.getcwd()):
    del sys.path[0]
