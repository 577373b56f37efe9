"""Hostile and odd config files: each is one clear ConfigError naming file:line:key,
never a traceback, a hang or a crash later when the first request is built."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import cli
from app.settings.config import ConfigError, load_config

PROVIDER = '[providers.p]\napi = "chat"\nmodel = "m"\nbase_url = "{url}"\n'


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    return str(caught.value)


# ── structures and URLs that used to raise ────────────────────────────────────────────


def test_deeply_nested_arrays_are_a_config_error(tmp_path: Path) -> None:
    path = write(tmp_path, "a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    message = error_of(path)
    assert message.startswith(f"{path}: invalid TOML: ")
    assert "nested too deeply" in message


@pytest.mark.parametrize(
    ("url", "detail"),
    [
        ("http://[::1/v1", "IPv6"),
        ("http://127.0.0.1:99999/v1", "port must be a number from 1 to 65535, not '99999'"),
        ("http://127.0.0.1:notaport/v1", "port must be a number from 1 to 65535, not 'notaport'"),
        ("http://127.0.0.1:0/v1", "port must be a number from 1 to 65535, not '0'"),
        ("http://:8000/v1", "no host"),
        ("http://ex ample.com/v1", "spaces or control characters"),
        ("http://[zz]/v1", "IPv6"),
    ],
)
def test_a_base_url_that_cannot_be_used_is_refused_when_read(
    tmp_path: Path, url: str, detail: str
) -> None:
    path = write(tmp_path, PROVIDER.format(url=url))
    message = error_of(path)
    assert message.startswith(f"{path}:4: providers.p.base_url: "), message
    assert detail in message


def test_good_base_urls_still_load(tmp_path: Path) -> None:
    for url in ("http://[::1]:8000/v1", "https://h.example:443/api/v1", "http://localhost:1/v1"):
        config = load_config(write(tmp_path, PROVIDER.format(url=url)), environ={})
        assert config.providers["p"].base_url == url


@pytest.mark.parametrize(
    ("url", "detail"),
    [
        ("http://[::1/v1", "IPv6"),
        ("http://127.0.0.1:99999/v1", "not '99999'"),
        ("http://127.0.0.1:notaport/v1", "not 'notaport'"),
        ("http://127.0.0.1:8000/v1/chat/completions", "ends with the endpoint"),
    ],
)
def test_ask_base_url_is_validated_before_any_request(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    url: str,
    detail: str,
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    code = cli.main(["ask", "--api", "chat", "--base-url", url, "--model", "m", "hi"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith("triptych: --base-url: ")
    assert detail in err
    assert "Traceback" not in err


# ── numbers, encodings, special files, headers ────────────────────────────────────────


@pytest.mark.parametrize("value", ["nan", "inf", "+inf", "-inf", "-1", "0", "0.0"])
@pytest.mark.parametrize("key", ["idle_timeout", "connect_timeout"])
def test_a_timeout_must_be_a_finite_positive_number(tmp_path: Path, key: str, value: str) -> None:
    path = write(tmp_path, f'system = "s"\n{key} = {value}\n')
    message = error_of(path)
    assert message.startswith(f"{path}:2: {key}: "), message
    assert "must be" in message


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_a_price_must_be_finite(tmp_path: Path, value: str) -> None:
    path = write(tmp_path, PROVIDER.format(url="http://h/v1") + f"price_in = {value}\n")
    message = error_of(path)
    assert message.startswith(f"{path}:5: providers.p.price_in: "), message
    assert "finite" in message


def test_a_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (PROVIDER.format(url="http://h/v1")).encode())
    path.chmod(0o600)
    config = load_config(path, environ={})
    assert config.providers["p"].model == "m"
    bad = tmp_path / "bom-bad.toml"
    bad.write_bytes(b"\xef\xbb\xbf" + b"[providers.p]\napi = 3\n")
    message = error_of(bad)
    assert f"{bad}:1: providers.p.base_url: missing" in message  # the header line, after the BOM
    assert f"{bad}:2: providers.p.api: must be a non-empty string" in message


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # nobody writes to it: reading it would block for ever
    message = error_of(fifo)
    assert message == f"{fifo}: cannot read config file: not a regular file (a FIFO)"


def test_a_device_is_refused_without_reading_it() -> None:
    message = error_of(Path("/dev/zero"))
    assert message == "/dev/zero: cannot read config file: not a regular file (a device)"


def test_a_huge_file_is_refused_after_a_bounded_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    with path.open("wb") as file:
        file.truncate(64 * 1024 * 1024)  # sparse: 64 MiB that cost no disk
    message = error_of(path)
    assert message == f"{path}: cannot read config file: larger than 1 MiB"


def test_a_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    target = write(tmp_path, PROVIDER.format(url="http://h/v1"))
    link = tmp_path / "link.toml"
    link.symlink_to(target)
    assert "p" in load_config(link, environ={}).providers


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        ('"X-A" = "a\\r\\nInjected: 1"', "control characters"),
        ('"X-A" = "a\\nb"', "control characters"),
        ('"X-A" = "a\\u0000b"', "control characters"),
        ('"X-A" = "caf\\u00e9"', "ASCII"),
        ('"X A" = "v"', "not a valid header name"),
        ('"X:A" = "v"', "not a valid header name"),
        ('"" = "v"', "not a valid header name"),
        ('"X\\nA" = "v"', "not a valid header name"),
    ],
)
def test_a_header_that_cannot_be_sent_is_refused_when_read(
    tmp_path: Path, header: str, detail: str
) -> None:
    path = write(tmp_path, PROVIDER.format(url="http://h/v1") + "[providers.p.headers]\n" + header)
    message = error_of(path)
    assert message.startswith(f"{path}:6: providers.p.headers."), message
    assert detail in message


def test_a_bad_header_value_is_never_echoed(tmp_path: Path) -> None:
    secret = "sk-header-secret-123"
    path = write(
        tmp_path,
        PROVIDER.format(url="http://h/v1")
        + f'headers = {{ Authorization = "Bearer {secret}\\r\\n" }}\n',
    )
    message = error_of(path)
    assert "providers.p.headers.Authorization" in message
    assert secret not in message


def test_ordinary_headers_still_load(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        PROVIDER.format(url="http://h/v1")
        + 'headers = { "X-Title" = "Triptych app", "x_b.c~!" = "a\\tb" }\n',
    )
    assert load_config(path, environ={}).providers["p"].headers == {
        "X-Title": "Triptych app",
        "x_b.c~!": "a\tb",
    }


@pytest.mark.parametrize("key", ["sk-abc\\r\\nX-Injected: 1", "sk-\\u00e9t\\u00e9", "sk-a\\u0000"])
def test_an_api_key_that_cannot_be_sent_is_refused_unechoed(tmp_path: Path, key: str) -> None:
    path = write(tmp_path, PROVIDER.format(url="http://h/v1") + f'api_key = "{key}"\n')
    message = error_of(path)
    assert message.startswith(f"{path}:5: providers.p.api_key: "), message
    assert "sk-" not in message


# ── any document: a Config or a ConfigError, nothing else ─────────────────────────────────────

_SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["chat", "messages", "responses", "http://h/v1", "http://[::1/v1", "demo"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
_PROVIDER_KEYS = [
    "api",
    "base_url",
    "model",
    "api_key_env",
    "api_key",
    "models",
    "headers",
    "params",
    "max_tokens",
    "price_in",
    "price_out",
    "price_cached",
    "modle",
]
_TOP_KEYS = ["default", "system", "idle_timeout", "connect_timeout", "ui", "providers", "idle"]


@settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    top=st.dictionaries(st.sampled_from(_TOP_KEYS), _VALUES, max_size=4),
    providers=st.dictionaries(
        st.text(min_size=1, max_size=6),
        st.dictionaries(st.sampled_from(_PROVIDER_KEYS), _VALUES, max_size=8) | _VALUES,
        max_size=3,
    ),
)
def test_any_document_loads_or_is_a_config_error(
    tmp_path: Path, top: dict[str, object], providers: dict[str, object]
) -> None:
    document = {**top, "providers": providers} if providers else top
    try:
        text = tomli_w.dumps(document)
    except (TypeError, ValueError):
        return  # not every generated shape is writable as TOML (e.g. a top-level array of tables)
    path = write(tmp_path, text)
    problems: list[str] = []
    try:
        config = load_config(path, environ={})
    except ConfigError as exc:
        problems = list(exc.problems)
    if problems:  # each one names the file (and the line and key where it has one)
        assert all(problem.startswith(f"{path}") for problem in problems), problems
    else:
        assert "demo" in config.providers
        assert math.isfinite(config.idle_timeout)
        assert config.idle_timeout > 0


def test_locating_many_problems_is_linear(tmp_path: Path) -> None:
    """A 1 MiB file may hold ~40,000 providers each missing keys: finding the line of each
    problem must not scan every key per problem (4,000 providers took 13 s that way)."""

    def seconds(count: int) -> float:
        path = tmp_path / f"many-{count}.toml"
        path.write_text("".join(f'[providers.p{i}]\napi = "chat"\n' for i in range(count)))
        start = time.perf_counter()
        with pytest.raises(ConfigError) as caught:
            load_config(path, environ={})
        elapsed = time.perf_counter() - start
        assert len(caught.value.problems) == 2 * count  # base_url and model, for each
        return elapsed

    small = min(seconds(500) for _ in range(3))
    big = min(
        seconds(4000) for _ in range(2)
    )  # 8x the size: ~8x the time when linear, ~64x when quadratic
    assert big < 25 * small, (small, big)
