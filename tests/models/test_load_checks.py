"""``load_model`` refuses a spec or a base URL that cannot work, before any request."""

from __future__ import annotations

import pytest

from dsh.models import load_model


@pytest.mark.parametrize("url", ["localhost:8000/v1", "ftp://host/v1", "https://", "notaurl"])
def test_a_base_url_that_is_not_an_http_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="is not an http:// or https:// URL"):
        load_model("gpt-4o-mini", base_url=url)


@pytest.mark.parametrize(
    "spec", ["script:s.json", "scripted s.json", "Scripted=s.json", "scriptd:s"]
)
def test_a_mistyped_scripted_spec_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="mistyped scripted"):
        load_model(spec)


@pytest.mark.parametrize("spec", ["gpt-4o-mini", "qwen2.5-coder:7b", "ollama/llama3:8b", "strict"])
def test_endpoint_model_names_and_urls_are_accepted(spec: str) -> None:
    model = load_model(spec, base_url="http://127.0.0.1:8000/v1")
    assert model.name
