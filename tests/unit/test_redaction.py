"""What counts as a provider's secret, and scrubbing streams of pieces (settings/redaction.py)."""

from __future__ import annotations

import base64
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from app.settings.config import ProviderConfig
from app.settings.redaction import (
    Redactor,
    _replaced,
    covered,
    held_tail,
    looks_like_key,
    provider_secrets,
    scrub_cut,
    shown_env_name,
)
from app.wire.engine import Api


def test_the_secrets_of_a_provider_come_from_every_place_it_keeps_one() -> None:
    basic = base64.b64encode(b"bob-the-user:basic-PASS-1234").decode()
    provider = ProviderConfig(
        name="p",
        api=Api.CHAT,
        base_url="https://user-name-long:pa%2Fss-WORD@h.example/v1?key=qkey-1234&api-version=2024",
        model="m",
        api_key="file-key-5678",
        headers={
            "Authorization": "Bearer hdr-bearer-99",
            "X-Goog-Api-Key": "goog-1234",
            "Proxy-Authorization": f"Basic {basic}",
            "Accept-Language": "en-US-long-enough",
        },
        params={"temperature": 0.5, "extra": {"access_token": "prm-tok-77", "name": "plain"}},
    )
    found = set(provider_secrets(provider, "env-key-0001"))
    assert {
        "env-key-0001",
        "file-key-5678",
        "Bearer hdr-bearer-99",
        "hdr-bearer-99",
        "goog-1234",
        "basic-PASS-1234",
        "pa%2Fss-WORD",
        "pa/ss-WORD",
        "user-name-long",
        "qkey-1234",
        "prm-tok-77",
    } <= found
    assert not {"en-US-long-enough", "2024", "plain"} & found


def test_a_secret_split_anywhere_across_pieces_never_gets_through() -> None:
    key = "sk-abcdefghijklmnop"
    text = f"one {key} two {key}{key} and sk-abc three sk-"
    rng = random.Random(7)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(text)), 6))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        redactor = Redactor([key], "[redacted]")
        out = [redactor.feed(piece) for piece in pieces]
        for piece in out:
            assert key[:8] not in piece  # no piece carries the start of the key
        joined = "".join(out) + redactor.flush()
        assert joined == "one [redacted] two [redacted][redacted] and sk-abc three sk-"


def test_fragments_of_a_key_split_by_framing_are_redacted_in_bytes() -> None:
    key = b"sk-abcdefghijklmnop"
    body = b'data: {"t": "' + key[:9] + b'"}\n\ndata: {"t": "' + key[9:] + b'"}\n\n'
    redactor = Redactor([key], b"[redacted]", fragments=8)
    out = b"".join(redactor.feed(body[i : i + 5]) for i in range(0, len(body), 5))
    out += redactor.flush()
    assert out == b'data: {"t": "[redacted]"}\n\ndata: {"t": "[redacted]"}\n\n'


def test_a_cut_message_loses_the_start_of_a_key_at_its_end() -> None:
    assert scrub_cut("denied for sk-abcd…", ["sk-abcdefgh"]) == "denied for [redacted]…"
    assert scrub_cut("ends in s…", ["sk-abcdefgh"]) == "ends in [redacted]…"
    assert scrub_cut("no key here…", ["sk-abcdefgh"]) == "no key here…"


def test_what_looks_like_a_key_and_what_names_a_variable() -> None:
    for name in ("OPENAI_API_KEY", "KENARI_API_KEY", "MY_KEY", "openai_key", "myProviderKey"):
        assert not looks_like_key(name), name
        assert shown_env_name(name) == name
    for key in ("sk-abc123", "sk_proj_A1b2C3", "a1B2c3D4e5F6g7H8i9J0kk", "AKIAIOSFODNN7EXAMPLE"):
        assert looks_like_key(key), key
        assert key not in shown_env_name(key)


class _SlowRedactor:
    """The Redactor as first written (every pattern searched, every tail tried): the fast one,
    with its prefilter and set of starts, must give exactly the same pieces."""

    def __init__(self, fast: Redactor[str]) -> None:
        self.patterns, self.redacted, self.limit = (
            fast.patterns,
            fast.redacted,
            4 * max((len(p) for p in fast.patterns), default=0),
        )
        self.held = ""

    def feed(self, piece: str) -> str:
        text = self.held + piece
        runs = covered(text, self.patterns)
        cut = len(text) - held_tail(text, self.patterns)
        for start, end in runs:
            if end > cut:
                cut = min(cut, start)
        if len(text) - cut > self.limit:
            cut = len(text)
        self.held = text[cut:]
        return _replaced(text[:cut], [r for r in runs if r[1] <= cut], self.redacted)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["sk-AbCdEfGh12345678", "AbCdEfGh", "345678", "x", "sk-", "\n", "Gh12"]),
        max_size=30,
    ),
    st.integers(min_value=1, max_value=9),
)
def test_the_fast_redactor_gives_what_the_first_one_gave(words: list[str], size: int) -> None:
    text = "".join(words)
    fast = Redactor(["sk-AbCdEfGh12345678", "short"], "[redacted]", fragments=8)
    slow = _SlowRedactor(fast)
    for start in range(0, len(text), size):
        piece = text[start : start + size]
        assert fast.feed(piece) == slow.feed(piece)
