"""What a model holds and costs, in `ask --json`: `cost` and `context_window` from the config's
own figures, else from the genai-prices catalogue (the [prices] extra), else null, never a
guess; and no error when the extra is not installed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from app import cli
from app.compare.stats import turn_cost
from app.demo.frames import Answer
from app.settings.config import load_config
from app.wire.engine import Api
from app.wire.events import Usage
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

KEY = "sk-prices-test-key-0007"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    config = tmp_path / "config-home" / "triptych" / "config.toml"
    config.parent.mkdir(parents=True)
    return config


def ask_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code = cli.main(["ask", "--json", *argv, "hi"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document: dict[str, object] = json.loads(out)
    return document


def test_a_catalogue_model_reports_its_cost_and_window(
    home: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    prices = pytest.importorskip("genai_prices")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_provider.url)
    fake_provider.push(fake.stream(Api.CHAT))
    document = ask_json(capsys, "--provider", "openai")
    usage = document["usage"]
    assert isinstance(usage, dict)
    counts = prices.Usage(
        input_tokens=usage["input_tokens"],
        cache_read_tokens=usage["cached_tokens"],
        output_tokens=usage["output_tokens"],
    )
    expected = prices.calc_price(counts, "gpt-5-mini", provider_id="openai")
    assert document["cost"] == pytest.approx(float(expected.total_price))
    assert isinstance(document["cost"], float)
    assert document["cost"] > 0
    assert document["context_window"] == expected.model.context_window
    assert isinstance(document["context_window"], int)


def test_the_configs_figures_win(
    home: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    home.write_text(
        f'[providers.openai]\nbase_url = "{fake_provider.url}"\nprice_in = 1.0\nprice_out = 2.0\n'
        "context_window = 32000\n"
    )
    home.chmod(0o600)
    fake_provider.push(fake.stream(Api.CHAT))
    document = ask_json(capsys, "--provider", "openai")
    provider = load_config(home, {}).providers["openai"]
    usage = document["usage"]
    assert isinstance(usage, dict)
    counted = Usage(usage["input_tokens"], usage["output_tokens"], usage["cached_tokens"])
    assert document["cost"] == pytest.approx(turn_cost(provider, counted))
    assert document["context_window"] == 32000


def test_no_figure_for_a_model_no_one_knows(
    home: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=("Hi.",), input_tokens=5)))
    url = fake_provider.url
    document = ask_json(capsys, "--api", "chat", "--base-url", url, "--model", "mystery-7b")
    assert (document["cost"], document["context_window"]) == (None, None)
    document = ask_json(capsys, "--provider", "demo")
    assert (document["cost"], document["context_window"]) == (None, None)


def test_without_the_extra_there_is_no_figure_and_no_error(
    home: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setitem(sys.modules, "genai_prices", None)  # import fails as if not installed
    monkeypatch.setenv("OPENAI_BASE_URL", fake_provider.url)
    fake_provider.push(fake.stream(Api.CHAT))
    document = ask_json(capsys, "--provider", "openai")
    assert document["status"] == "complete"
    assert (document["cost"], document["context_window"]) == (None, None)
