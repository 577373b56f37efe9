"""`triptych replay FILE --ui`: a recording streamed into the screen again through the loopback
replay server, the client and the widgets of a live answer; a comparison side by side."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app import cli
from app.demo.replay_server import ReplayServer
from app.headless.replay_plan import ReplayPlan, prompt_of, replay_plan
from app.providers.record import Exchange, read_recording
from app.settings.config import Config
from app.ui.app import TriptychApp
from app.ui.flows import replaying
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.inspector import Inspector
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import screen_text, wait_until


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def record(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    compare: str = "",
    prompt: str = "reverse the words",
) -> Path:
    path = tmp_path / "r.jsonl"
    with FakeProvider() as server:
        if compare:
            server.push(
                *[lambda r: fake.stream(Api.MESSAGES if r.path.endswith("/messages") else Api.CHAT)]
                * 2
            )
            config = tmp_path / "c.toml"
            config.write_text(
                "".join(
                    f'[providers.{n}]\napi = "{n}"\nbase_url = "{server.url}"\nmodel = "m-{n}"\n'
                    for n in compare.split(",")
                ),
                encoding="utf-8",
            )
            base = ["ask", "--compare", compare, "--config", str(config)]
        else:
            server.push(fake.stream(Api.CHAT))
            base = ["ask", "--api", "chat", "--base-url", server.url, "--model", "m-1"]
        cli.main([*base, "--json", "--record", str(path), prompt])
    err = capsys.readouterr().err
    assert path.exists(), err
    return path


def replay_app(server: ReplayServer, plan: ReplayPlan, tmp_path: Path) -> TriptychApp:
    providers = {p.name: p for p in (server.provider_for(n) for n in range(len(server.exchanges)))}
    first = plan.steps[0][1]
    return TriptychApp(
        Config(path=None, default=first[0], providers=providers),
        state_file=tmp_path / "state.toml",
        themes_dir=tmp_path / "themes",
        compare=list(first) if plan.side_by_side else None,
        replay=plan,
    )


def test_the_recorded_prompt_of_each_format() -> None:
    chat = Exchange(
        {
            "body": {
                "messages": [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": "b"},
                    {"role": "user", "content": "c"},
                ]
            }
        }
    )
    messages = Exchange(
        {
            "body": {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "one"},
                            {"type": "image"},
                            {"type": "text", "text": "two"},
                        ],
                    }
                ]
            }
        }
    )
    responses = Exchange({"body": {"input": "just this"}})
    items = Exchange(
        {"body": {"input": [{"role": "user", "content": [{"type": "input_text", "text": "item"}]}]}}
    )
    assert [prompt_of(e) for e in (chat, messages, responses, items)] == [
        "c",
        "one\ntwo",
        "just this",
        "item",
    ]
    assert prompt_of(Exchange({"body": "not json"})) == ""


def test_a_plan_groups_the_same_question_side_by_side_and_follows_a_conversation() -> None:
    def asking(*texts: str) -> Exchange:
        return Exchange({"body": {"messages": [{"role": "user", "content": t} for t in texts]}})

    together = replay_plan([asking("q"), asking("q")], ["replay 1", "replay 2"])
    assert together.steps == (("q", ("replay 1", "replay 2")),)
    assert together.side_by_side
    following = replay_plan([asking("q"), asking("q", "r")], ["replay 1", None])
    assert following.steps == (("q", ("replay 1",)),)  # an exchange it cannot replay is left out
    talk = replay_plan([asking("q"), asking("q", "r")], ["replay 1", "replay 2"])
    assert talk.steps == (("q", ("replay 1",)), ("r", ("replay 2",)))
    assert not talk.side_by_side


async def test_a_recording_streams_into_the_chat_with_the_inspector_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded = read_recording(await asyncio.to_thread(record, tmp_path, capsys))  # asks in a loop
    with ReplayServer(recorded, speed=None) as server:
        plan = replay_plan(recorded, ["replay 1"])
        app = replay_app(server, plan, tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            await wait_until(
                pilot, lambda: app.pane.turn is not None and app.pane.turn.done, what="replayed"
            )
            await pilot.pause(0.3)
            assert app.pane.turn is not None
            assert app.pane.turn.status is TurnStatus.COMPLETE
            assert app.pane.turn.text == "Hello, world."
            inspector = app.screen.query_one(Inspector)
            assert inspector.display
            assert inspector.exchange is app.pane.turn.exchange
            text = screen_text(app)
            assert "reverse the words" in text  # typed in as the user did
            assert "/replay/0/chat/completions" in text  # the request went to the replay server
        assert len(server.requests) == 1


async def test_a_comparison_recording_replays_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded = read_recording(
        await asyncio.to_thread(record, tmp_path, capsys, compare="chat,messages")
    )
    with ReplayServer(recorded, speed=None) as server:
        plan = replay_plan(recorded, ["replay 1", "replay 2"])
        assert plan.side_by_side
        app = replay_app(server, plan, tmp_path)
        async with app.run_test(size=(160, 40)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="compare")
            screen = app.screen
            assert isinstance(screen, CompareScreen)
            await wait_until(
                pilot,
                lambda: all(p.turn is not None and p.turn.done for p in screen.panes),
                what="both answers",
            )
            assert [p.turn.text for p in screen.panes if p.turn] == ["Hello, world."] * 2
        assert len(server.requests) == 2


def test_speed_goes_with_ui_and_a_broken_file_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path, capsys)
    assert cli.main(["replay", str(path), "--speed", "2"]) == 2
    assert "--speed goes with --ui" in capsys.readouterr().err
    assert cli.main(["replay", str(path), "--ui", "--speed", "fast"]) == 2
    assert "--speed must be a positive number or max" in capsys.readouterr().err
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"not": "ours"}\n', encoding="utf-8")
    assert cli.main(["replay", str(broken), "--ui"]) == 2
    assert "cannot replay" in capsys.readouterr().err


@pytest.mark.parametrize("named", ["nosuch.txt", "secret.env"])
async def test_an_at_path_in_a_recorded_prompt_is_text_not_a_file_to_attach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    named: str,
) -> None:  # fmt: skip
    """A missing file stopped the prompt at the screen and the replay waited forever; a file
    that is there was read and sent."""
    prompt = f"summarise @{named} please"
    recorded = read_recording(await asyncio.to_thread(record, tmp_path, capsys, prompt=prompt))
    (tmp_path / "secret.env").write_text("AWS_SECRET_ACCESS_KEY=do-not-send\n")
    monkeypatch.chdir(tmp_path)  # where the screen looks for `@` files
    with ReplayServer(recorded, speed=None) as server:
        app = replay_app(server, replay_plan(recorded, ["replay 1"]), tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            await wait_until(
                pilot,
                lambda: any("Replay done" in str(n.message) for n in app._notifications),
                what="the replay's end",
            )
            assert app.pane.turn is not None
            assert app.pane.turn.status is TurnStatus.COMPLETE
        (request,) = server.requests
    assert json.loads(request.body)["messages"] == [{"role": "user", "content": prompt}]
    assert b"do-not-send" not in request.body


async def test_a_prompt_the_screen_does_not_send_stops_the_replay_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = read_recording(
        await asyncio.to_thread(record, tmp_path, capsys, prompt="see @nosuch.txt")
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(replaying, "mentions", lambda text: [])  # the screen refuses the @file
    monkeypatch.setattr(replaying, "START_LIMIT", 0.5)
    with ReplayServer(recorded, speed=None) as server:
        app = replay_app(server, replay_plan(recorded, ["replay 1"]), tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            said = "Replay stopped: recorded prompt 1 of 1 was not sent (it is back in the prompt)"
            await wait_until(
                pilot,
                lambda: any(said in str(n.message) for n in app._notifications),
                what="the replay's stop",
            )
        assert server.requests == []


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
async def test_a_raw_capture_streams_into_the_chat_with_the_inspector_open(
    tmp_path: Path, api: Api
) -> None:
    """A `curl -N` body has no request: the format comes from its frames, the prompt typed is
    `Replay of NAME`, and the frames arrive as the reads they were cut into."""
    from app.demo.frames import frames
    from app.headless.replay import open_recording

    path = tmp_path / f"{api.value}.sse"
    path.write_bytes(b"".join(frames(api, fake.ANSWER)))
    recorded = open_recording(path)
    with ReplayServer(recorded, speed=None) as server:
        assert server.provider_for(0).api is api
        plan = replay_plan(recorded, ["replay 1"])
        app = replay_app(server, plan, tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            await wait_until(
                pilot, lambda: app.pane.turn is not None and app.pane.turn.done, what="replayed"
            )
            await pilot.pause(0.3)
            turn = app.pane.turn
            assert turn is not None
            assert (turn.status, turn.text) == (TurnStatus.COMPLETE, "Hello, world.")
            inspector = app.screen.query_one(Inspector)
            assert inspector.display
            assert inspector.exchange is turn.exchange
            assert f"Replay of {api.value}.sse" in screen_text(app)
