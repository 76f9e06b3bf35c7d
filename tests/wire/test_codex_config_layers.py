"""Codex 0.171's config layers for its model set-up, replayed from the binary's recording.

``tests/fixtures/codex_model_config.json`` (``benchmarks/record_codex_model_config.py``)
holds what the real ``codex exec`` did for each set-up: the model it asked for, the
provider it asked (``/v1`` is the user's provider, ``/other/v1`` the other), a refusal, a
warning. dsh reads the same files (``dsh.models._codex_layers``) and must land on the same
model and provider, refuse what Codex refused (with a message naming the file or the
flag) and warn what Codex warned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from record_codex_model_config import write_setup

from dsh.models import load_model
from dsh.models._codex_layers import check_profile_name, codex_layers
from dsh.models._provider import StreamingModel

FIXTURE = Path(__file__).parents[1] / "fixtures" / "codex_model_config.json"
CASES: list[dict[str, Any]] = json.loads(FIXTURE.read_text())["cases"]
URL = "http://127.0.0.1:9/v1"


def _flag(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home, work = tmp_path / "home" / ".codex", tmp_path / "w"
    work.mkdir()
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL", "DSH_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("DSH_CODEX_PROFILE", raising=False)
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("DSH_MOCK_API_KEY", "sk-layers")
    return home, work


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_dsh_lands_where_codex_did(case: dict[str, Any], places: tuple[Path, Path]) -> None:
    home, work = places
    write_setup(case["setup"], home, work, URL)
    argv = list(case["setup"].get("argv", ()))
    warnings: list[str] = []

    def load() -> Any:
        return load_model(
            _flag(argv, "-m") or "",
            codex_profile=True,
            project=work,
            profile=_flag(argv, "--profile"),
            warn=warnings.append,
        )

    if case["exit_code"] != 0:
        with pytest.raises(ValueError) as refused:
            load()
        said = str(refused.value)
        recorded = " ".join(case["stderr"])
        if "cannot be used while" in recorded:
            assert "--profile `p2` cannot be used while" in said
            assert "[profiles.p2]" in said
        elif "legacy `profile" in recorded:
            assert 'legacy `profile = "p1"` config is no longer supported' in said
            assert str(home / "config.toml") in said
        elif "invalid --profile value" in recorded:
            assert "invalid --profile value `../p2`; pass a plain name such as `work`" in said
        else:
            assert str(work / ".codex" / "config.toml") in said
            assert "not valid TOML" in said
        return
    model = load()
    assert isinstance(model, StreamingModel)
    [asked] = case["models"]
    [path] = case["paths"]
    assert model.name == asked
    assert model.base_url == URL.replace("/v1", path.split()[1].removesuffix("/responses"))
    recorded_warnings = [line for line in case["stderr"] if "Ignored unsupported" in line]
    assert [w.replace(str(work.parent), "<tmp>") for w in warnings] == [
        line.removeprefix("warning: ") for line in recorded_warnings
    ]


def test_a_profile_name_is_a_plain_name() -> None:
    for name in ("work", "work-2", "W_1"):
        assert check_profile_name(name) == name
    for name in ("", "a b", "a/b", "a.b", "é"):
        with pytest.raises(ValueError, match="pass a plain name such as `work`"):
            check_profile_name(name)


def test_a_profile_file_that_is_not_toml_is_named(places: tuple[Path, Path]) -> None:
    home, work = places
    write_setup({}, home, work, URL)
    (home / "p.config.toml").write_text("model = [")
    with pytest.raises(ValueError, match=r"--profile p: .*p\.config\.toml: not valid TOML"):
        codex_layers({"CODEX_HOME": str(home)}, project=work, profile="p", system=None)


def test_an_untrusted_projects_file_is_not_read(places: tuple[Path, Path]) -> None:
    home, work = places
    write_setup({"project": "model = 'm-project'"}, home, work, URL)
    layers = codex_layers({"CODEX_HOME": str(home)}, project=work, system=None)
    assert layers.settings["model"] == "m-user"
    assert layers.where("model") == str(home / "config.toml")
