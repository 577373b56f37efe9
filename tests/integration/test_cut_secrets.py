"""A message that quotes part of what a server sent, cut to length, never keeps a run of a key:
however the message is cut (`...` inside a quote, `…`, a sample at the end) the scrub finds
what is left of the key, on the turn and in the events the screen and `ask` see as they come.

Over loopback with the project's fake provider; hypothesis places keys of any length anywhere
in a malformed data line.
"""

from __future__ import annotations

import asyncio
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.demo.loopback import Reply, Send
from app.providers.client import ProviderClient
from app.settings.redaction import scrub_cut
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.events import Event, StreamError
from app.wire.turn import Turn
from tests.fakes.provider import SSE, FakeProvider

RUN = 8  # characters of a key in a row that count as a leak

# The filler shares no character with the keys, so every run of a key found is the key's own.
keys = (
    st.text(string.ascii_lowercase + string.digits + "-_", min_size=12, max_size=64)
    .map(lambda tail: "sk-" + tail)
    .filter(lambda key: "redacted" not in key)
)
filler = st.text(string.ascii_uppercase + " ,:{}", max_size=120)
near_the_cut = st.text(string.ascii_uppercase + " ,:{}", min_size=30, max_size=80)  # cut at 77


def runs_of(key: str, text: str) -> list[str]:
    """Every run of RUN characters of `key` that `text` holds."""
    return [key[i : i + RUN] for i in range(len(key) - RUN + 1) if key[i : i + RUN] in text]


def ask() -> Conversation:
    conversation = Conversation()
    conversation.add_user("hello")
    return conversation


async def stream_once(server: FakeProvider, key: str, data: str) -> tuple[Turn, list[Event]]:
    server.push(Reply(200, SSE, (Send(f"data: {data}\n\n".encode()),)))
    seen: list[Event] = []
    async with ProviderClient(server.provider(Api.CHAT), key) as client:
        turn = await client.stream(ask(), Turn(), on_event=seen.append)
    return turn, seen


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(key=keys, before=near_the_cut, after=filler)
def test_a_malformed_data_line_message_keeps_no_run_of_the_key(
    fake_provider: FakeProvider, key: str, before: str, after: str
) -> None:
    data = '{"text": "' + before + key + after  # never closed: not JSON
    turn, seen = asyncio.run(stream_once(fake_provider, key, data))
    assert turn.error is not None
    assert "not JSON" in turn.error.message
    assert runs_of(key, turn.error.message) == [], turn.error.message
    shown = [e.message for e in seen if isinstance(e, StreamError)]
    assert shown, "the error reaches on_event"
    for message in shown:
        assert runs_of(key, message) == [], message


def test_the_cut_falls_at_every_point_of_the_key(fake_provider: FakeProvider) -> None:
    key = "sk-live-9f8e7d6c5b4a39281706"
    for before in range(40, 80):  # the sample is cut at 77 characters
        turn, seen = asyncio.run(stream_once(fake_provider, key, '{"x": "' + "a" * before + key))
        assert turn.error is not None
        for message in [turn.error.message, *(e.message for e in seen if type(e) is StreamError)]:
            assert key[:4] not in message.replace("[redacted]", ""), (before, message)


@given(
    key=keys,
    before=filler,
    after=filler,
    keep=st.integers(0, 200),
    mark=st.sampled_from(["", "…", "...", "…'", "...'", '..."', "…)", "...']"]),
)
def test_scrub_cut_finds_a_key_however_the_text_is_cut(
    key: str, before: str, after: str, keep: int, mark: str
) -> None:
    text = before + key + after
    for cut in (text[:keep] + mark, mark + text[-keep:] if keep else mark):
        assert runs_of(key, scrub_cut(f"failed: '{cut} (more)", [key])) == []
        assert runs_of(key, scrub_cut(cut, [key])) == []
