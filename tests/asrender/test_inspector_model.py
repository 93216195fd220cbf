"""The inspector server's answers that no browser is needed to check: which requests it refuses
(another host, another site's page), and the program list the page polls, listed again only when
it may have changed. ``tests/asrender/test_inspector_state.py`` checks what a program's state holds."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.inspector import server as server_module
from promptwire.frontend.asrender.inspector.server import InspectorServer

pytestmark = pytest.mark.programs("evidence-qa", "strict-invoice")


def _get(server: InspectorServer, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(server.url + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            body = answer.read()
            return answer.status, json.loads(body) if answer.headers["content-type"] == "application/json" else body
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_requests_for_another_host_are_refused(server: InspectorServer) -> None:
    """A DNS name rebound to 127.0.0.1 reaches the server but names itself in ``Host``."""
    port = server.server_address[1]
    for path in ("", "api/programs", "api/state?file=strict-invoice.as"):
        status, body = _get(server, path, {"Host": f"attacker.example:{port}"})
        assert status == 403 and b"not for host 'attacker.example:" in body, path
    assert _get(server, "api/programs", {"Host": f"127.0.0.1:{port + 1}"})[0] == 403
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        assert _get(server, "api/programs", {"Host": host}) == (200, ["evidence-qa.as", "strict-invoice.as"])


def test_data_requests_from_another_site_are_refused_but_a_link_opens_the_page(server: InspectorServer) -> None:
    for site in ("cross-site", "same-site"):
        status, body = _get(server, "api/state?file=strict-invoice.as", {"Sec-Fetch-Site": site})
        assert (status, body) == (403, b"requests from other sites are refused\n"), site
        status, page = _get(server, "", {"Sec-Fetch-Site": site})
        assert status == 200 and b"promptwire inspector" in page
    for site in ("same-origin", "none"):
        assert _get(server, "api/programs", {"Sec-Fetch-Site": site})[0] == 200


def test_the_poll_carries_the_program_list_and_a_new_program_is_found_at_once(
    server: InspectorServer, folder: Path
) -> None:
    status, data = _get(server, "api/version?file=strict-invoice.as")
    assert status == 200 and data["programs"] == ["evidence-qa.as", "strict-invoice.as"]
    assert data["version"].count("/") == 3  # the program, its input, its replies, its recorded run
    for suffix in (".as", ".input.json", ".responses.json"):
        shutil.copy2(folder / f"strict-invoice{suffix}", folder / f"added{suffix}")
    status, state = _get(server, "api/state?file=added.as")  # listed again before a "no"
    assert status == 200 and state["error"] is None and state["file"] == "added.as"
    assert _get(server, "api/version?file=strict-invoice.as")[1]["programs"] == [
        "added.as",
        "evidence-qa.as",
        "strict-invoice.as",
    ]
    (folder / "added.as").unlink()
    server.programs(fresh=True)  # as it is, at most a second later
    status, body = _get(server, "api/version?file=added.as")
    assert (status, body) == (404, b"no program 'added.as' here\n")


def test_the_folder_is_listed_once_per_interval_while_the_page_polls(
    server: InspectorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = []
    real = server_module.program_list

    def counting(root: Path) -> list[str]:
        listed.append(root)
        return real(root)

    monkeypatch.setattr(server_module, "program_list", counting)
    monkeypatch.setattr(server_module, "PROGRAMS_TTL", 3600.0)  # however slow the machine
    server.programs(fresh=True)
    for _ in range(5):
        assert _get(server, "api/version?file=evidence-qa.as")[0] == 200
    assert len(listed) == 1
    assert _get(server, "api/version?file=nothing.as")[0] == 404  # a miss looks again
    assert len(listed) == 2
