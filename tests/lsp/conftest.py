"""The editor the Neovim test drives: Debian's ``neovim``. Without it that test is skipped and says
so, unless PROMPTWIRE_REQUIRE_EDITOR=1 (set by .ci/run, which installs it) makes that a failure."""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE_EDITOR = os.environ.get("PROMPTWIRE_REQUIRE_EDITOR") == "1"


@pytest.fixture
def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        reason = "nvim is missing: apt-get install neovim"
        if REQUIRE_EDITOR:
            pytest.fail(f"{reason} (PROMPTWIRE_REQUIRE_EDITOR=1 requires the editor test)", pytrace=False)
        pytest.skip(reason)
    return found
