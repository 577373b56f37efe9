"""`triptych ask` against hostile servers over loopback, and fuzzed server-side.

Work on any body is linear in its length: each pathological body is sent at two sizes in the
same test and the CPU time of the larger may grow by the size ratio times a generous factor,
never quadratically (no absolute time limits: the machine is shared). Random status lines,
headers and bodies, seeded and bounded, never crash `ask`: exit 0 or 1, never a traceback,
stdout and stderr always valid UTF-8 (and one JSON object with `--json`).
"""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from app import cli
from app.providers.client import ProviderClient
from app.providers.errors import ProviderError
from app.settings.config import ProviderConfig
from app.wire.engine import Api
from tests.fakes.hostile import HostileServer, random_responses, response, sse_body

SMALL, LARGE = 64 * 1024, 1024 * 1024
# Linear work grows 16x from SMALL to LARGE; quadratic work 256x. Allow 4x for noise.
MAX_GROWTH = (LARGE // SMALL) * 4
STATUSES = {"complete", "failed", "interrupted"}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def ask(
    monkeypatch: pytest.MonkeyPatch, server: HostileServer, *flags: str, api: Api = Api.CHAT
) -> tuple[int, str, str]:
    """`triptych ask` in-process, writing to strict UTF-8 streams as a real terminal would."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    argv = ["ask", *flags, "--api", api.value, "--base-url", server.url, "--model", "m", "hi"]
    code = cli.main(argv)
    out.flush()
    err.flush()
    raw_out: bytes = out.buffer.getvalue()  # type: ignore[attr-defined]
    raw_err: bytes = err.buffer.getvalue()  # type: ignore[attr-defined]
    return code, raw_out.decode("utf-8"), raw_err.decode("utf-8")


def cpu_seconds(run: Callable[[], object]) -> float:
    """CPU time of this process (client and the server thread), the best of two runs."""
    best = float("inf")
    for _ in range(2):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return max(best, 1e-3)


def assert_linear(
    monkeypatch: pytest.MonkeyPatch, make: Callable[[int], bytes], check: Callable[[str], None]
) -> None:
    """Ask with the body `make(n)` at both sizes; the work may grow linearly, no more."""
    seconds = {}
    for size in (SMALL, LARGE):
        with HostileServer() as server:
            server.push(make(size), make(size))
            outputs: list[str] = []

            def run(server: HostileServer = server, outputs: list[str] = outputs) -> None:
                code, out, err = ask(monkeypatch, server, "--json")
                assert code in (0, 1), err
                assert "Traceback" not in err
                outputs.append(out)

            seconds[size] = cpu_seconds(run)
        for out in outputs:
            check(out)
    growth = seconds[LARGE] / seconds[SMALL]
    assert growth < MAX_GROWTH, f"work grew {growth:.0f}x for 16x the body: {seconds}"


def failed_with(*words: str) -> Callable[[str], None]:
    def check(out: str) -> None:
        document = json.loads(out)
        assert document["status"] == "failed"
        for word in words:
            assert word in document["error"]["message"]

    return check


def ended(status: str) -> Callable[[str], None]:
    def check(out: str) -> None:
        assert json.loads(out)["status"] == status

    return check


# -- linear work on any body --------------------------------------------------------

HTML_PATTERNS = [b"<", b"<script", b"<script>", b"<title>", b"<head ", b"<a ", b"</", b"<title"]


@pytest.mark.parametrize("pattern", HTML_PATTERNS, ids=[p.decode() for p in HTML_PATTERNS])
@pytest.mark.parametrize("status", [200, 503])
def test_an_html_body_of_any_shape_costs_linear_time(
    monkeypatch: pytest.MonkeyPatch, pattern: bytes, status: int
) -> None:
    def make(size: int) -> bytes:
        body = pattern * (size // len(pattern))
        return response(status, [("Content-Type", "text/html")], body)

    want = "web page" if status == 200 else "HTTP 503"
    assert_linear(monkeypatch, make, failed_with(want))


def test_a_200_html_page_with_a_title_says_what_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    page = b"<html><head><title>Gateway down</title></head><body>" + b"<p>x</p>" * 100_000
    with HostileServer() as server:
        server.push(response(200, [("Content-Type", "text/html")], page))
        code, out, _ = ask(monkeypatch, server, "--json")
    assert code == 1
    message = json.loads(out)["error"]["message"]
    assert message.startswith("the provider sent a web page, not a stream: Gateway down")
    assert len(message) < 400


def test_a_gzip_stream_of_newlines_costs_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    def make(size: int) -> bytes:
        body = gzip.compress(b"\n" * size + sse_body(Api.CHAT))
        headers = [("Content-Type", "text/event-stream"), ("Content-Encoding", "gzip")]
        return response(200, headers, body, framing="chunked")

    assert_linear(monkeypatch, make, ended("complete"))


@pytest.mark.parametrize("line", [b"\n", b"\r\n", b" \n", b": keepalive\n\n", b"data:\n\n"])
def test_blank_and_comment_lines_cost_linear_time(
    monkeypatch: pytest.MonkeyPatch, line: bytes
) -> None:
    def make(size: int) -> bytes:
        body = line * (size // len(line)) + sse_body(Api.CHAT)
        return response(200, [("Content-Type", "text/event-stream")], body, framing="close")

    assert_linear(monkeypatch, make, ended("complete"))


@pytest.mark.parametrize("status", [200, 400])
def test_deeply_nested_json_costs_linear_time_and_fails_plainly(
    monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    def make(size: int) -> bytes:
        return response(status, [("Content-Type", "application/json")], b"[" * size)

    want = "does not parse" if status == 200 else "HTTP 400"
    assert_linear(monkeypatch, make, failed_with(want))


def test_a_body_of_whitespace_then_a_document_costs_linear_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def make(size: int) -> bytes:
        body = b" " * size + b'{"error": {"message": "late"}}'
        # One byte per chunk: the body kind must not be re-decided over everything held.
        chunks = b"".join(b"1\r\n%s\r\n" % body[i : i + 1] for i in range(min(len(body), 8192)))
        rest = body[8192:]
        tail = b"%x\r\n%s\r\n0\r\n\r\n" % (len(rest), rest)
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        return head + b"Transfer-Encoding: chunked\r\n\r\n" + chunks + tail

    assert_linear(monkeypatch, make, ended("interrupted"))


# -- compression Triptych cannot read, a Retry-After too long to show ------------------

BROTLI_ISH = b"\x1b\x0f\x00\xf8\xa5\x40\xc2\xaa\x00" + bytes(range(40))


@pytest.mark.parametrize("content_type", ["text/event-stream", "application/json"])
def test_a_br_body_fails_saying_triptych_cannot_read_the_compression(
    monkeypatch: pytest.MonkeyPatch, content_type: str
) -> None:
    headers = [("Content-Type", content_type), ("Content-Encoding", "br")]
    with HostileServer() as server:
        server.push(response(200, headers, BROTLI_ISH), response(200, headers, BROTLI_ISH))
        code, out, _ = ask(monkeypatch, server, "--json")
        plain_code, _, err = ask(monkeypatch, server)
    document = json.loads(out)
    assert (code, plain_code) == (1, 1)
    assert document["status"] == "failed"
    assert document["error"]["code"] == "unreadable_encoding"
    message = document["error"]["message"]
    assert message == (
        "the provider sent its answer compressed as 'br', which Triptych cannot read"
        " (it reads gzip and deflate)"
    )
    assert message in err


def test_an_error_body_in_br_keeps_the_status_and_names_the_compression(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    headers = [("Content-Type", "application/json"), ("Content-Encoding", "br")]
    with HostileServer() as server:
        server.push(response(429, headers, BROTLI_ISH))
        code, out, _ = ask(monkeypatch, server, "--json")
    assert code == 1
    error = json.loads(out)["error"]
    assert error["code"] == "http_429"
    assert error["message"] == (
        "HTTP 429 Too Many Requests (the body is compressed as 'br', which Triptych cannot read)"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("30", " (retry after 30 s)"),
        ("Wed, 21 Oct 2026 07:28:00 GMT", " (retry after Wed, 21 Oct 2026 07:28:00 GMT)"),
        ("x" * 60 * 1024, ""),
        ("9" * 40, ""),
        ("soon \x1b]0;pwned\x07", ""),
        ("-5", ""),
    ],
    ids=["seconds", "date", "60KiB", "huge-number", "escape", "negative"],
)
def test_retry_after_is_shown_only_when_it_is_a_short_number_or_a_date(
    monkeypatch: pytest.MonkeyPatch, value: str, shown: str
) -> None:
    body = json.dumps({"error": {"message": "slow down", "code": "rate_limited"}}).encode()
    headers = [("Content-Type", "application/json"), ("Retry-After", value)]
    with HostileServer() as server:
        server.push(response(429, headers, body))
        code, out, _ = ask(monkeypatch, server, "--json")
    assert code == 1
    assert json.loads(out)["error"]["message"] == "HTTP 429: slow down" + shown


# -- fuzzing the server side -----------------------------------------------------------------

FUZZ_SEED, FUZZ_BATCHES, FUZZ_PER_BATCH = 17_2026, 4, 40


@pytest.mark.parametrize("batch", range(FUZZ_BATCHES))
def test_random_status_lines_headers_and_bodies_never_crash_ask(
    monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    apis = list(Api)
    with HostileServer() as server:
        for number, raw in enumerate(random_responses(FUZZ_SEED + batch, FUZZ_PER_BATCH)):
            server.push(raw)
            api = apis[number % len(apis)]
            as_json = number % 2 == 0
            flags = ["--json"] if as_json else ["--reasoning"]
            code, out, err = ask(monkeypatch, server, *flags, api=api)
            where = f"seed {FUZZ_SEED + batch}, response {number}: {raw[:200]!r}"
            assert code in (0, 1), f"{where}\n{err}"
            assert "Traceback" not in err, where
            if as_json:
                document = json.loads(out)
                assert document["status"] in STATUSES, where
                assert (document["status"] == "complete") == (code == 0), where
            else:
                assert err.rstrip().splitlines(), where  # the summary line is always there


def gzip_of_newlines(size: int) -> bytes:
    """A small gzip body that expands to `size` bytes of newlines (about 1000:1)."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)  # 31: a gzip header
    block = b"\n" * (1 << 20)
    parts = [packer.compress(block) for _ in range(size >> 20)]
    return b"".join([*parts, packer.flush()])


def test_a_gzip_bomb_of_newlines_stops_at_a_bound_not_at_its_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """16 MiB or 128 MiB of blank lines cost the same: reading stops after 4 MiB with no
    event, with a message, where it used to go on at 100% CPU to the end."""
    headers = [("Content-Type", "text/event-stream"), ("Content-Encoding", "gzip")]
    seconds = {}
    for size in (16 << 20, 128 << 20):
        body = gzip_of_newlines(size)
        with HostileServer() as server:
            server.push(*(response(200, headers, body) for _ in range(2)))
            outputs: list[str] = []

            def run(server: HostileServer = server, outputs: list[str] = outputs) -> None:
                code, out, err = ask(monkeypatch, server, "--json")
                assert code == 1, err
                outputs.append(out)

            seconds[size] = cpu_seconds(run)
        for out in outputs:
            error = json.loads(out)["error"]
            assert error["code"] == "no_events"
            assert error["message"] == (
                "the provider sent more than 4,194,304 bytes without a single event"
            )
    assert seconds[128 << 20] / seconds[16 << 20] < 3, seconds


def test_a_60_kib_status_line_is_named_not_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    with HostileServer() as server:
        server.push(b"G" * 60 * 1024 + b"\r\n\r\n")
        code, out, _ = ask(monkeypatch, server, "--json")
    assert code == 1
    error = json.loads(out)["error"]
    assert error["code"] == "network_error"
    assert error["message"].endswith(" failed (illegal status line)")


@pytest.mark.parametrize(
    ("location", "shown"),
    [
        ("https://api.example.test/v1", "https://api.example.test/v1"),
        ("y" * 60 * 1024, "elsewhere"),
    ],
    ids=["short", "60KiB"],
)
def test_a_redirect_names_its_location_only_when_it_is_short(
    monkeypatch: pytest.MonkeyPatch, location: str, shown: str
) -> None:
    with HostileServer() as server:
        server.push(response(301, [("Location", location)]))
        code, out, _ = ask(monkeypatch, server, "--json")
    assert code == 1
    assert json.loads(out)["error"]["message"] == (
        f"HTTP 301 Moved Permanently (redirected to {shown}: check the provider's base_url)"
    )


# -- GET /models is a body too -----------------------------------------------------------------


def list_models(server: HostileServer) -> list[str] | ProviderError:
    provider = ProviderConfig(name="h", api=Api.CHAT, base_url=server.url, model="m")

    async def go() -> list[str] | ProviderError:
        async with ProviderClient(provider, None) as client:
            try:
                return await client.list_models()
            except ProviderError as exc:
                return exc

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        (b"[" * 200_000, "unexpected_answer", "the model list is not JSON"),
        (b" " * (9 << 20) + b"{}", "answer_too_large", "the model list was too large to read"),
    ],
    ids=["nested", "9MiB"],
)
def test_a_hostile_model_list_fails_plainly_and_is_read_only_so_far(
    body: bytes, code: str, message: str
) -> None:
    with HostileServer() as server:
        server.push(response(200, [("Content-Type", "application/json")], body))
        result = list_models(server)
    assert isinstance(result, ProviderError)
    assert (result.code, result.message) == (code, message)


def test_a_model_list_in_br_names_the_compression() -> None:
    headers = [("Content-Type", "application/json"), ("Content-Encoding", "br")]
    with HostileServer() as server:
        server.push(response(200, headers, BROTLI_ISH))
        result = list_models(server)
    assert isinstance(result, ProviderError)
    assert result.code == "unreadable_encoding"
    assert "compressed as 'br', which Triptych cannot read" in result.message


def test_a_model_list_error_body_is_read_only_to_its_bound() -> None:
    body = json.dumps({"error": {"message": "nope"}}).encode() + b" " * (8 << 20)
    with HostileServer() as server:
        server.push(response(403, [("Content-Type", "application/json")], body))
        result = list_models(server)
    assert isinstance(result, ProviderError)
    assert result.message.startswith("HTTP 403")


@pytest.mark.parametrize("status", [200, 500])
def test_a_compressed_body_is_inflated_in_bounded_pieces(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, status: int
) -> None:
    """httpx inflates each 64 KiB network read whole (up to ~64 MiB of newlines at once); the
    client inflates at most 1 MiB at a time, which the recording of every read shows."""
    headers = [("Content-Type", "text/event-stream"), ("Content-Encoding", "gzip")]
    record = tmp_path / "bomb.jsonl"
    with HostileServer() as server:
        server.push(response(status, headers, gzip_of_newlines(64 << 20)))
        code, _, err = ask(monkeypatch, server, "--json", "--record", str(record))
    assert code == 1, err
    sizes = []
    for line in record.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["type"] == "data":
            text = entry.get("text")
            sizes.append(len(text.encode()) if text is not None else len(entry["base64"]) * 3 // 4)
    assert sizes
    assert max(sizes) <= 1 << 20
