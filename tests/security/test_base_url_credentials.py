"""A base URL's user and password (``--base-url http://user:pass@gateway``) never show in a message,
not even as the base64 of the Basic ``Authorization`` header the SDK's HTTP client makes of them
(a 401 that echoes the header printed it), and a run says which credential goes where: the Basic
header takes the place of the API key, which is then not sent; Ollama's SDK sends neither."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

import promptwire
from promptwire.core.errors import AuthenticationError
from promptwire.core.secrets import mask, url_secrets
from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import fake_provider

USER, PASSWORD = "alice", "s3cret-gateway-pass"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()

PROGRAM = """import llm M from "openai://e401echo"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        return generate({ input: "x" })
    }
}
"""


@pytest.fixture
def program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-anthropic-test-key")
    path = tmp_path / "p.as"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def _with_user(url: str) -> str:
    return url.replace("http://", f"http://{USER}:{PASSWORD}@")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_echoed_basic_header_is_masked_and_the_run_says_where_the_password_goes(
    program: Path, capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    with fake_provider() as server:
        url = _with_user(server.base_url if provider == "openai" else server.root)
        code = main([str(program), "--provider", provider, "--base-url", url, "--no-stream"])
        sent = server.headers[0]["authorization"]
    out, err = capsys.readouterr()
    assert code == 1 and sent == f"Basic {BASIC}"  # what httpx sends: the key is not
    assert BASIC not in out + err and PASSWORD not in out + err
    assert "Basic ***" in err
    assert (
        f"warning: base URL http://***@{url.split('@', 1)[1]}: its user and password are sent as HTTP Basic "
        f"authentication (the Authorization header), in place of {provider}'s API key, which is then not sent"
    ) in err


def test_the_python_api_warns_and_masks_too(program: Path) -> None:
    warned = pytest.warns(UserWarning, match="in place of openai's API key")
    with fake_provider() as server, warned, pytest.raises(AuthenticationError) as failure:
        promptwire.run(program, provider="openai", base_url=_with_user(server.base_url))
    assert BASIC not in str(failure.value) and BASIC not in (failure.value.body or "")


def test_ollama_is_said_to_send_no_user_or_password(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main([str(program), "--provider", "ollama", "--base-url", "http://u:pw-for-ollama@127.0.0.1:9", "--dry-run"])
    assert "Ollama's SDK sends no user or password from a URL: they are not sent" in capsys.readouterr().err


def test_the_basic_credential_of_a_url_is_a_secret() -> None:
    assert mask(f"got Basic {BASIC}", *url_secrets(f"http://{USER}:{PASSWORD}@host")) == "got Basic ***"
    encoded = base64.b64encode(b"al ice:p@ss word!").decode()
    assert mask(f"got {encoded}", *url_secrets("http://al%20ice:p%40ss%20word%21@host")) == "got ***"
