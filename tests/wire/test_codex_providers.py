"""Codex 0.171's built-in providers, ``openai_base_url`` and ``--profile``, as the binary does.

``tests/fixtures/codex_providers.json`` (``benchmarks/record_codex_providers.py``) holds
what the real ``codex exec`` did per set-up: where its requests went (a path prefix tells
the URLs apart: ``/config/v1`` the user's ``openai_base_url``, ``/profile/v1`` the
profile's, ``/oss/v1`` ``$CODEX_OSS_BASE_URL``, ``/v1`` the mock's port through
``$CODEX_OSS_PORT``), what it refused and which hooks ran. dsh reads the same files and
environment and must land on the same URL and refuse the same set-ups; the local
providers and a profile's hooks are then run for real: ``dsh run --hooks codex`` against
the loopback Responses mock.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _responses_mock import ResponsesMock
from _side_cases import Reply, SideCase
from record_codex_providers import fill, write_setup

from dsh.models import load_model
from dsh.models._provider import StreamingModel
from tests.cli.support import run_dsh

FIXTURE = Path(__file__).parents[1] / "fixtures" / "codex_providers.json"
RECORDED: dict[str, dict[str, Any]] = {
    c["case"]: c for c in json.loads(FIXTURE.read_text())["cases"]
}
URL = "http://127.0.0.1:9/v1"
_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CODEX_OSS_BASE_URL", "CODEX_OSS_PORT")


def _recorded_url(case: dict[str, Any]) -> str:
    """The base URL the recorded requests went to, in this test's terms (``URL``'s host)."""
    [post] = [str(p) for p in case["paths"] if p.startswith("POST")]
    path = post.split()[1].removesuffix("/responses")
    port = case["setup"].get("env", {}).get("CODEX_OSS_PORT")
    if port == "<port>" and path == "/v1":  # the mock's port, through http://localhost:PORT
        return fill("http://localhost:<port>/v1", URL)
    return URL.removesuffix("/v1") + path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home" / ".codex"
    for name in (*_ENV, "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "DSH_CODEX_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def _load(case: dict[str, Any], home: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    write_setup(case["setup"], home, URL)
    for name, value in case["setup"].get("env", {}).items():
        monkeypatch.setenv(name, fill(value, URL))
    argv = list(case["setup"].get("argv", ()))
    profile = argv[argv.index("--profile") + 1] if "--profile" in argv else None
    return load_model("", codex_profile=True, project=home.parent, profile=profile)


@pytest.mark.parametrize(
    "name",
    [n for n, c in RECORDED.items() if c["exit_code"] == 0 and not c["setup"].get("files", {})]
    + ["openai-base-url-profile", "profile-provider"],
)
def test_dsh_asks_where_codex_asked(name: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = RECORDED[name]
    model = _load(case, home, monkeypatch)
    assert isinstance(model, StreamingModel)
    assert model.base_url == _recorded_url(case)
    assert model.name == case["models"][-1]


def test_openai_base_url_alone_in_the_environment_is_a_dsh_fallback(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0.171 ignores ``$OPENAI_BASE_URL`` (its run asked OpenAI itself and timed out here);
    dsh keeps the variable as the built-in ``openai``'s URL when no config sets one."""
    case = RECORDED["openai-base-url-env"]
    assert case["exit_code"] != 0
    assert not [p for p in case["paths"] if p.startswith("POST")]
    model = _load(case, home, monkeypatch)
    assert isinstance(model, StreamingModel)
    assert model.base_url == URL.removesuffix("/v1") + "/env/v1"


@pytest.mark.parametrize(
    ("name", "recorded", "said"),
    [
        ("openai-table-ignored", "reserved built-in provider IDs: `openai`", None),
        ("ollama-table-ignored", "reserved built-in provider IDs: `ollama`", None),
        ("ollama-chat", "`ollama-chat` is no longer supported", None),
        ("amazon-bedrock", "Amazon Bedrock auth", "Amazon Bedrock provider, whose requests"),
        ("amazon-bedrock-runtime", "Amazon Bedrock auth", "Amazon Bedrock provider, whose"),
    ],
)
def test_dsh_refuses_what_codex_refused(
    name: str, recorded: str, said: str | None, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = RECORDED[name]
    assert case["exit_code"] == 1
    assert recorded in " ".join(case["stderr"])
    with pytest.raises(ValueError) as refused:
        _load(case, home, monkeypatch)
    assert (said or recorded) in str(refused.value)
    assert str(home / "config.toml") in str(refused.value)


@pytest.mark.parametrize("port", ["x", "", " ", "65536", "9" * 5000, "١٢٣"])
def test_a_port_that_is_not_a_port_number_is_the_default(
    port: str, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = {"user": 'model_provider = "lmstudio"\n', "env": {"CODEX_OSS_PORT": port}}
    model = _load({"setup": setup}, home, monkeypatch)
    assert isinstance(model, StreamingModel)
    assert model.base_url == "http://localhost:1234/v1"


def test_openai_base_url_that_is_not_a_string_is_refused(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ValueError, match=r"config\.toml: openai_base_url must be a string"):
        _load({"setup": {"user": "openai_base_url = 3\n"}}, home, monkeypatch)


# Real runs: one mock for the module, each run the real `dsh run --hooks codex`.

HOOK_CASE = SideCase(name="providers", prompt="hi", replies=(Reply(text="done"),), hooks={})


@pytest.fixture(scope="module")
def mock() -> Iterator[ResponsesMock]:
    with ResponsesMock() as server:
        yield server


def _run(tmp_path: Path, mock: ResponsesMock, name: str, *flags: str) -> Any:
    case = RECORDED[name]
    home, work = tmp_path / "home" / ".codex", tmp_path / "w"
    work.mkdir(parents=True)
    write_setup(case["setup"], home, mock.url)
    mock.load(HOOK_CASE)
    env = {k: fill(v, mock.url) for k, v in case["setup"].get("env", {}).items()}
    env |= {"CODEX_HOME": str(home), "HOME": str(home.parent), "DSH_DATA_DIR": str(tmp_path)}
    env |= {"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": "", "ANTHROPIC_MODEL": ""}
    env |= {"OTHER_KEY": "k"}
    argv = ["run", "hi", "--hooks", "codex", "--project", str(work), *flags]
    done = run_dsh(*argv, "--session-dir", str(tmp_path / "s"), cwd=work, env=env)
    log = work / "hooks.log"
    return done, log.read_text().split() if log.is_file() else []


@pytest.mark.parametrize("name", ["ollama-base-url", "lmstudio-port"])
def test_a_local_built_in_provider_runs_against_the_server(
    name: str, tmp_path: Path, mock: ResponsesMock
) -> None:
    done, _ = _run(tmp_path, mock, name)
    assert done.returncode == 0, done.stderr
    assert "done" in done.stdout
    recorded = [p for p in RECORDED[name]["paths"] if p.startswith("POST")]
    assert [p for p in mock.paths if p.startswith("POST")] == recorded
    assert [h.get("authorization") for h in mock.headers] == [None]  # no key, as Codex sends


@pytest.mark.parametrize("name", ["profile-hooks", "no-profile-hooks"])
def test_a_profile_s_hooks_run_only_with_its_profile(
    name: str, tmp_path: Path, mock: ResponsesMock
) -> None:
    argv = list(RECORDED[name]["setup"]["argv"])
    done, hooks = _run(tmp_path, mock, name, *argv)
    assert done.returncode == 0, done.stderr
    assert hooks == RECORDED[name]["hooks"]
