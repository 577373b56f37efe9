"""Side by side, headless: which providers, their figures, the ranking line, `ask --compare`.

The `ask --compare` tests run the real CLI in process against three fake providers (one per
format, each its own loopback server, since concurrent requests arrive in any order)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from app import cli
from app.compare import (
    CompareSpecError,
    PaneTimes,
    format_cost,
    pane_labels,
    pane_stats,
    parse_compare,
    ranking_line,
    turn_cost,
)
from app.demo.frames import Answer
from app.demo.loopback import Pause, Reply
from app.settings.config import Config, ConfigError, ProviderConfig
from app.wire.engine import Api
from app.wire.events import Usage
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

KEY = "sk-compare-SECRET-0123456789"
JSON_KEYS = {
    "provider",
    "model",
    "api",
    "status",
    "text",
    "reasoning",
    "tool_calls",
    "server_tools",
    "finish_reason",
    "usage",
    "cache_hit_share",
    "error",
    "interruption",
    "cost",
    "context_window",
    "ttft_ms",
    "duration_ms",
    "params",
    "rounds",
}


def provider(name: str, api: Api = Api.CHAT, **changes: object) -> ProviderConfig:
    base = ProviderConfig(name=name, api=api, base_url="http://127.0.0.1:9/v1", model="m")
    return replace(base, **changes)  # type: ignore[arg-type]


CONFIG = Config(
    path=None,
    default="a",
    providers={
        "a": provider("a"),
        "b": provider("b", Api.MESSAGES, model="claude"),
        "odd:name": provider("odd:name", Api.RESPONSES),
    },
)


# -- which providers -----------------------------------------------------------------------------


def test_parse_takes_two_to_four_names_in_order() -> None:
    assert [p.name for p in parse_compare("b, a", CONFIG)] == ["b", "a"]
    assert len(parse_compare("a,b,a,b", CONFIG)) == 4
    for value in ("a", "a,b,a,b,a", " , "):
        with pytest.raises(CompareSpecError, match="2 to 4"):
            parse_compare(value, CONFIG)


def test_parse_name_colon_model_and_names_with_colons() -> None:
    first, second, third = parse_compare("b:claude-big,a,odd:name", CONFIG)
    assert (first.name, first.model, first.api) == ("b", "claude-big", Api.MESSAGES)
    assert (second.name, second.model) == ("a", "m")
    assert third.name == "odd:name"  # the whole item is a provider name first
    with pytest.raises(ConfigError, match="unknown provider 'nope'"):
        parse_compare("a,nope:m", CONFIG)
    with pytest.raises(CompareSpecError, match="no model"):
        parse_compare("a,b:", CONFIG)


def test_labels_tell_duplicate_providers_apart() -> None:
    a, b = CONFIG.providers["a"], CONFIG.providers["b"]
    assert pane_labels([a, b]) == ["a", "b"]
    assert pane_labels([a, replace(a, model="x"), b]) == ["a:m", "a:x", "b"]
    assert pane_labels([a, a]) == ["a:m #1", "a:m #2"]


# -- cost ----------------------------------------------------------------------------------------


PRICED = {"price_in": 2.0, "price_out": 10.0, "price_cached": 0.5}


@pytest.mark.parametrize("api", [Api.CHAT, Api.RESPONSES])
def test_cost_openai_formats_count_cached_inside_input(api: Api) -> None:
    priced = provider("p", api, **PRICED)
    cost = turn_cost(priced, Usage(1000, 200, 400))
    assert cost == pytest.approx((600 * 2.0 + 400 * 0.5 + 200 * 10.0) / 1e6)


def test_cost_messages_counts_cached_apart_from_input() -> None:
    priced = provider("p", Api.MESSAGES, **PRICED)
    assert turn_cost(priced, Usage(1000, 200, 400)) == pytest.approx(
        (1000 * 2.0 + 400 * 0.5 + 200 * 10.0) / 1e6
    )


def test_cost_needs_prices_and_counts() -> None:
    no_cached_price = provider("p", price_in=3.0, price_out=15.0)
    assert turn_cost(no_cached_price, Usage(100, 10, 50)) == pytest.approx(
        (100 * 3.0 + 10 * 15.0) / 1e6
    )
    assert turn_cost(provider("p"), Usage(100, 10, 0)) is None
    assert turn_cost(provider("p", price_in=1.0), Usage(100, 10, 0)) is None
    assert turn_cost(no_cached_price, None) is None
    assert turn_cost(no_cached_price, Usage(None, 10, None)) is None


@pytest.mark.parametrize(
    ("cost", "shown"),
    [
        (0.0, "$0"),
        (0.0042, "$0.0042"),
        (0.000012, "$0.000012"),
        (0.01234, "$0.0123"),
        (2.5, "$2.50"),
    ],
)
def test_cost_is_shown_with_three_significant_digits(cost: float, shown: str) -> None:
    assert format_cost(cost) == shown


# -- figures and ranking ------------------------------------------------------------------------


def settled(status: TurnStatus, usage: Usage | None, finish: str | None = "stop") -> Turn:
    turn = Turn(text_parts=["x" * 40], usage=usage, finish_reason=finish)
    turn.status = status
    return turn


def test_pane_stats_measure_from_the_panes_own_start() -> None:
    priced = provider("p", price_in=1.0, price_out=2.0)
    turn = settled(TurnStatus.COMPLETE, Usage(10, 50, 0))
    stats = pane_stats("p", priced, turn, PaneTimes(100.0, 100.5, 102.5, 102.6))
    assert stats.ttft == pytest.approx(0.5)
    assert stats.duration == pytest.approx(2.6)
    assert stats.rate is not None
    # first token to the end of the stream (2.1 s), as the history's saved figures measure it
    assert stats.rate.tokens_per_second == pytest.approx(50 / 2.1)
    assert not stats.rate.estimated
    assert stats.cost == pytest.approx((10 * 1.0 + 50 * 2.0) / 1e6)
    no_usage = pane_stats("p", priced, settled(TurnStatus.COMPLETE, None), PaneTimes(0, 1, 2, 2))
    assert no_usage.rate is not None
    assert no_usage.rate.estimated  # from 40 characters
    waiting = pane_stats("p", priced, Turn(), PaneTimes(5.0))
    assert (waiting.ttft, waiting.duration, waiting.rate, waiting.cost) == (None, None, None, None)


def test_ranking_orders_each_figure_and_keeps_failed_panes_out_of_total() -> None:
    cheap = provider("cheap", price_in=0.1, price_out=0.2)
    dear = provider("dear", price_in=5.0, price_out=15.0)
    stats = [
        pane_stats(
            "dear", dear, settled(TurnStatus.COMPLETE, Usage(10, 90)), PaneTimes(0, 0.9, 3, 3)
        ),
        pane_stats(
            "cheap", cheap, settled(TurnStatus.COMPLETE, Usage(10, 40)), PaneTimes(0, 0.2, 4, 4)
        ),
        pane_stats(
            "broken", provider("broken"), settled(TurnStatus.FAILED, None), PaneTimes(0, 0.5, 1, 1)
        ),
    ]
    line = ranking_line(stats)
    assert line == (
        "time and cost: lower is better"
        " · first token: cheap 200 ms › broken 500 ms › dear 900 ms"
        " · total: dear 3.00s › cheap 4.00s › broken failed"
        " · output tokens: cheap 40 › dear 90 › broken failed"
        " · cost: cheap $0.000009 › dear $0.0014 › broken failed"
    )


def test_ranking_without_prices_says_so_and_ties_keep_pane_order() -> None:
    turn = settled(TurnStatus.COMPLETE, Usage(1, 7))
    stats = [pane_stats(n, provider(n), turn, PaneTimes(0, 1, 2, 2)) for n in ("x", "y")]
    assert ranking_line(stats).endswith("output tokens: x 7 = y 7 · cost: no prices set")


# -- ask --compare over three fake providers -----------------------------------------------------


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    monkeypatch.setenv("COMPARE_KEY", KEY)
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))


def write_config(tmp_path: Path, fakes: dict[Api, FakeProvider]) -> Path:
    lines = ['default = "cc"']
    for name, api in (("cc", Api.CHAT), ("am", Api.MESSAGES), ("rs", Api.RESPONSES)):
        lines += [
            f"[providers.{name}]",
            f'api = "{api.value}"',
            f'base_url = "{fakes[api].url}"',
            f'model = "{name}-model"',
            'api_key_env = "COMPARE_KEY"',
            "price_in = 1.0",
            "price_out = 4.0",
        ]
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


FAILING = Answer(text=("Half", " an", " answer", " and more"), error_after=2)


def test_json_is_a_list_of_ask_objects_and_one_failure_means_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fakes: dict[Api, FakeProvider]
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, Answer(text=("Hi", " from", " chat"))))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, FAILING))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, fake.ANSWER))
    config = write_config(tmp_path, fakes)
    code, out, err = run(
        capsys, "--config", str(config), "ask", "--compare", "cc,am,rs", "--json", "q"
    )
    assert code == 1
    documents = json.loads(out)
    assert [set(d) for d in documents] == [JSON_KEYS] * 3
    assert [(d["provider"], d["api"], d["status"]) for d in documents] == [
        ("cc", "chat", "complete"),
        ("am", "messages", "failed"),
        ("rs", "responses", "complete"),
    ]
    assert documents[0]["text"] == "Hi from chat"
    assert documents[1]["text"] == "Half an"  # the partial answer is kept
    assert documents[1]["error"] is not None
    assert documents[2]["tool_calls"][0]["name"] == "get_weather"
    for api, server in fakes.items():
        request = server.last_request()
        assert request.headers.get("authorization", request.headers.get("x-api-key", "")).endswith(
            KEY
        ), api
    assert KEY not in out + err


def test_all_complete_exits_0_and_blocks_print_in_pane_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fakes: dict[Api, FakeProvider]
) -> None:
    # The first pane is the slowest: the others must not wait for it, yet print after it.
    slow = Answer(text=("Slow", " but", " sure"))
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, slow, delay=0.15))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, Answer(text=("Quick",))))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, Answer(text=("Also", " quick"))))
    config = write_config(tmp_path, fakes)
    code, out, err = run(capsys, "--config", str(config), "ask", "q", "--compare", "cc,am,rs")
    assert code == 0
    blocks = out.split("── ")
    assert [b.split(" · ")[1] for b in blocks[1:]] == ["cc", "am", "rs"]
    assert "Slow but sure" in blocks[1]
    assert "Quick" in blocks[2]
    assert err.count(" · complete · ") == 3
    ranking = err.strip().splitlines()[-1]
    assert ranking.startswith("ranking · time and cost: lower is better · first token: ")
    finish = ranking.split(" · total: ")[1].split(" · ")[0]
    assert finish.index("cc") > max(finish.index("am"), finish.index("rs"))  # slowest last
    assert "cost: am $" in ranking


def test_the_streams_run_at_the_same_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fakes: dict[Api, FakeProvider]
) -> None:
    for api, server in fakes.items():
        sent = fake.stream(api, Answer(text=("late",)))
        server.push(Reply(sent.status, sent.headers, (Pause(0.6), *sent.steps)))
    config = write_config(tmp_path, fakes)
    started = time.monotonic()
    code, out, _ = run(
        capsys, "--config", str(config), "ask", "--json", "--compare", "cc,am,rs", "q"
    )
    elapsed = time.monotonic() - started
    assert code == 0
    assert elapsed < 1.5, f"three 0.6 s waits took {elapsed:.2f} s: not concurrent"
    assert all(d["ttft_ms"] >= 550 for d in json.loads(out))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--compare", "cc"], "2 to 4"),
        (["--compare", "cc,am,rs,cc,am"], "2 to 4"),
        (["--compare", "cc,nope"], "unknown provider 'nope'"),
        (["--compare", "cc,am", "--provider", "cc"], "drop --provider"),
        (["--compare", "cc,am", "--model", "x"], "drop --model"),
    ],
)
def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fakes: dict[Api, FakeProvider],
    extra: list[str],
    message: str,
) -> None:
    config = write_config(tmp_path, fakes)
    code, out, err = run(capsys, "--config", str(config), "ask", "q", *extra)
    assert code == 2
    assert message in err
    assert out == ""
    assert all(not server.requests for server in fakes.values())


def test_a_missing_key_is_a_usage_error_before_any_request(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fakes: dict[Api, FakeProvider],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("COMPARE_KEY")
    config = write_config(tmp_path, fakes)
    code, _, err = run(capsys, "--config", str(config), "ask", "q", "--compare", "cc,am")
    assert code == 2
    assert "COMPARE_KEY" in err
    assert all(not server.requests for server in fakes.values())


def test_the_demos_compare_offline(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "ask", "--compare", "demo,demo-messages:big", "--json", "hello")
    assert code == 0
    documents = json.loads(out)
    assert [(d["provider"], d["model"], d["status"]) for d in documents] == [
        ("demo", "demo", "complete"),
        ("demo-messages", "big", "complete"),
    ]
    assert "demo: offline sample" in err


def test_record_keeps_every_exchange_apart_and_replays(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fakes: dict[Api, FakeProvider]
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, Answer(text=("One",))))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, Answer(text=("Two",))))
    config = write_config(tmp_path, fakes)
    record = tmp_path / "both.jsonl"
    argv = ["--config", str(config), "ask", "q", "--compare", "cc,am", "--record", str(record)]
    assert run(capsys, *argv)[0] == 0
    assert KEY not in record.read_text()
    code, out, _ = run(capsys, "replay", str(record))
    assert code == 0
    assert sorted(out.split()) == ["One", "Two"]


# -- triptych --compare (the TUI's flags) --------------------------------------------------------


def test_tui_gets_the_compare_names(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, object]] = []

    def run_tui(config: object, **flags: object) -> int:
        calls.append(flags)
        return 0

    monkeypatch.setattr(cli, "_import_run_tui", lambda: run_tui)
    assert run(capsys, "--compare", "demo, demo-messages:big")[0] == 0
    assert calls[0]["compare"] == ["demo", "demo-messages:big"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--compare", "demo"], "2 to 4"),
        (["--compare", "demo,nope"], "unknown provider 'nope'"),
        (["--compare", "demo,demo-messages", "--continue"], "pick one"),
        (["--compare", "demo,demo-messages", "--model", "m"], "NAME:MODEL"),
    ],
)
def test_tui_compare_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.setattr(cli, "_import_run_tui", lambda: pytest.fail("the UI must not start"))
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_ctrl_c_stops_every_stream_prints_the_list_and_exits_130(tmp_path: Path) -> None:
    """As a real process: SIGINT closes the streams, and what arrived is still printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "ch"), TRIPTYCH_DATA_DIR=str(tmp_path / "d"))
    argv = [sys.executable, "-m", "app", "ask", "--json", "--compare", "demo,demo-responses"]
    process = subprocess.Popen(
        [*argv, "a long answer please"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    assert "demo: offline sample" in process.stderr.readline()  # the streams are starting
    # past the first tokens (0.35 s, later on a loaded machine), far from the end (20 s)
    time.sleep(2.5)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=10)
    assert process.returncode == 130, err
    documents = json.loads(out)
    assert [d["status"] for d in documents] == ["stopped", "stopped"]
    assert all(d["text"].startswith("_demo: offline sample") for d in documents)
    assert "Traceback" not in err


def test_a_pane_shows_an_estimate_not_messages_placeholder_count_while_streaming() -> None:
    from app.compare.status import pane_status_segments
    from app.display.turn_watch import TurnWatch
    from app.wire.events import TextDelta, Usage

    provider = ProviderConfig(name="p", api=Api.MESSAGES, base_url="http://x/v1", model="m")
    turn = Turn()
    turn.apply_all([Usage(16, 1, 8), TextDelta("x" * 400)])  # message_start's placeholder
    watch = TurnWatch(started=0.0)
    watch.observe(turn, 1.0)
    stats = pane_stats("p", provider, turn, PaneTimes(0.0, 1.0))
    texts = [text for text, _ in pane_status_segments(stats, turn, watch, 1.5)]
    assert "in 16 out ~100 cached 8" in texts
    assert not any("out 1 " in text + " " for text in texts)
