"""Attachments: `ask --attach PATH` sends images, PDFs and text files in each
format's own shape (the exact JSON the fake server received); files are recognised by their
bytes; limits come from the provider's settings; every bad file is a clear message, exit 2,
nothing sent and a piped prompt left unread; the history keeps each content once and exports
list the files."""

from __future__ import annotations

import base64
import io
import json
import sqlite3
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.providers.attachments import AttachmentError, load_attachment, recognise
from app.providers.requests import build_request
from app.settings.config import ConfigError, ProviderConfig, load_config
from app.store import Store
from app.store.export import to_json, to_markdown
from app.wire.attachment import Attachment
from app.wire.conversation import Conversation
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider


def png_bytes() -> bytes:
    """A real 1x1 PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


PNG = png_bytes()
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
WEBP = (
    b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11"
    b"\x11\x88\x88\xfe\x07\x00"
)
GIF = (
    b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00"
    b"\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
)
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
SOURCE = b"def hello():\n    return 'hi'\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.setattr("sys.stdin", _Tty())


@pytest.fixture
def files(tmp_path: Path) -> Path:
    folder = tmp_path / "files"
    folder.mkdir()
    for name, data in {
        "shot.png": PNG,
        "photo.jpg": JPEG,
        "anim.webp": WEBP,
        "wave.gif": GIF,
        "paper.pdf": PDF,
        "main.py": SOURCE,
        "notes.md": "# Notes\n\n- café\n".encode(),
        "table.csv": b"a,b\n1,2\n",
        "data.json": b'{"k": [1, 2]}',
        "readme": b"plain words\n",
    }.items():
        (folder / name).write_bytes(data)
    return folder


def ask(
    capsys: pytest.CaptureFixture[str], server: FakeProvider, api: Api, *paths: Path
) -> tuple[int, str]:
    argv = ["ask", "--api", api.value, "--base-url", server.url, "--model", "m-9"]
    for path in paths:
        argv += ["--attach", str(path)]
    code = cli.main([*argv, "look"])
    return code, capsys.readouterr().err


SOURCE_PART = "<file name=\"main.py\">\ndef hello():\n    return 'hi'\n</file>"
USER_CONTENT: dict[Api, list[dict[str, Any]]] = {
    Api.CHAT: [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(PNG)}"}},
        {
            "type": "file",
            "file": {
                "filename": "paper.pdf",
                "file_data": f"data:application/pdf;base64,{b64(PDF)}",
            },
        },
        {"type": "text", "text": SOURCE_PART},
    ],
    Api.MESSAGES: [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)},
        },
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": b64(PDF)},
            "title": "paper.pdf",
        },
        {"type": "text", "text": SOURCE_PART},
        {"type": "text", "text": "look"},
    ],
    Api.RESPONSES: [
        {"type": "input_text", "text": "look"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{b64(PNG)}"},
        {
            "type": "input_file",
            "filename": "paper.pdf",
            "file_data": f"data:application/pdf;base64,{b64(PDF)}",
        },
        {"type": "input_text", "text": SOURCE_PART},
    ],
}


@pytest.mark.parametrize("api", list(Api))
def test_each_kind_is_sent_in_the_formats_own_shape(
    api: Api, files: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_provider.push(fake.stream(api))
    paths = [files / "shot.png", files / "paper.pdf", files / "main.py"]
    code, err = ask(capsys, fake_provider, api, *paths)
    assert code == 0, err
    body = fake_provider.last_request().json
    if api is Api.RESPONSES:
        assert body["input"] == [{"type": "message", "role": "user", "content": USER_CONTENT[api]}]
    else:
        assert body["messages"] == [{"role": "user", "content": USER_CONTENT[api]}]


@pytest.mark.parametrize(
    ("name", "media_type"),
    [
        ("shot.png", "image/png"),
        ("photo.jpg", "image/jpeg"),
        ("anim.webp", "image/webp"),
        ("wave.gif", "image/gif"),
    ],
)
def test_every_image_type_is_recognised_by_its_bytes(
    name: str,
    media_type: str,
    files: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_provider.push(fake.stream(Api.MESSAGES))
    assert ask(capsys, fake_provider, Api.MESSAGES, files / name)[0] == 0
    (message,) = fake_provider.last_request().json["messages"]
    data = (files / name).read_bytes()
    assert message["content"][0] == {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": b64(data)},
    }
    # Renamed without an extension, the bytes still say what it is.
    assert recognise("noext", data).media_type == media_type


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("notes.md", "# Notes\n\n- café\n"),
        ("table.csv", "a,b\n1,2\n"),
        ("data.json", '{"k": [1, 2]}\n'),
        ("readme", "plain words\n"),
    ],
)
def test_text_files_are_text_parts_named_after_the_file(
    name: str,
    text: str,
    files: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    assert ask(capsys, fake_provider, Api.CHAT, files / name)[0] == 0
    (message,) = fake_provider.last_request().json["messages"]
    assert message["content"] == [
        {"type": "text", "text": "look"},
        {"type": "text", "text": f'<file name="{name}">\n{text}</file>'},
    ]


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def test_a_prompt_from_stdin_is_left_unread_when_a_file_is_refused(
    tmp_path: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stdin = io.StringIO("my long prompt")
    monkeypatch.setattr("sys.stdin", stdin)
    argv = ["ask", "--api", "chat", "--base-url", fake_provider.url, "--model", "m"]
    assert cli.main([*argv, "--attach", str(tmp_path / "gone.png")]) == 2
    assert stdin.read() == "my long prompt"
    assert fake_provider.requests == []


def bad_cases(folder: Path) -> list[tuple[Path, str]]:
    return [
        (folder / "gone.png", f"--attach {folder / 'gone.png'}: no such file"),
        (folder, f"--attach {folder}: is a directory, not a file"),
        (write(folder, "fake.png", JPEG), "fake.png: named .png but is a JPEG image"),
        (write(folder, "pic.jpg", b"just words"), "pic.jpg: named .jpg but is text"),
        (write(folder, "image.png", b"\x00\x01binary"), "image.png: named .png but is not a PNG"),
        (write(folder, "doc.pdf", b"hello"), "doc.pdf: named .pdf but is text"),
        (write(folder, "code.py", PNG), "code.py: named .py but is a PNG image"),
        (write(folder, "notes.txt", PDF), "notes.txt: named .txt but is a PDF"),
        (write(folder, "data.json", b"{nope"), "data.json: named .json but is not JSON"),
        (write(folder, "latin.md", b"caf\xe9"), "latin.md: not an image (PNG, JPEG, WebP, GIF)"),
        (write(folder, "blob.bin", b"\x00\xff\x00"), "blob.bin: not an image (PNG, JPEG, WebP"),
    ]


def test_every_bad_file_exits_2_naming_it_and_sends_nothing(
    tmp_path: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    for path, message in bad_cases(tmp_path):
        code, err = ask(capsys, fake_provider, Api.CHAT, path)
        assert code == 2, path
        assert err.startswith("triptych: --attach "), err
        assert message in err, err
        assert "Traceback" not in err
    assert fake_provider.requests == []


def limited_config(tmp_path: Path, server: FakeProvider, limits: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[providers.small]\napi = "messages"\nbase_url = "{server.url}"\nmodel = "m"\n'
        f"[providers.small.attachments]\n{limits}\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("limits", "count", "message"),
    [
        ("max_files = 1", 2, "2 files, over small's limit of 1 (max_files in"),
        (
            "max_file_mb = 0.00001",
            1,
            "shot.png: {png} bytes, over the limit of 10 bytes per file "
            "(max_file_mb in [providers.small.attachments])",
        ),
        ("max_total_mb = 0.00008", 2, "{both} bytes in all, over small's limit of 80 bytes"),
    ],
)
def test_limits_are_the_providers_setting_checked_before_sending(
    limits: str,
    count: int,
    message: str,
    tmp_path: Path,
    files: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = limited_config(tmp_path, fake_provider, limits)
    attach = [a for p in ["shot.png", "photo.jpg"][:count] for a in ("--attach", str(files / p))]
    message = message.format(png=len(PNG), both=len(PNG) + len(JPEG))
    code = cli.main(["--config", str(config), "ask", "--provider", "small", *attach, "q"])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err
    assert fake_provider.requests == []


def test_the_default_limits_follow_the_big_providers(tmp_path: Path) -> None:
    from app.settings.config import DEFAULT_ATTACHMENT_LIMITS

    assert DEFAULT_ATTACHMENT_LIMITS[Api.MESSAGES].max_file_mb == 5  # Anthropic: 5 MB images
    assert DEFAULT_ATTACHMENT_LIMITS[Api.CHAT].max_file_mb == 20  # OpenAI: 20 MB files
    big = tmp_path / "big.png"
    big.write_bytes(PNG + b"\x00" * 6_000_000)
    with pytest.raises(AttachmentError) as caught:
        load_attachment(big, 5_000_000)
    assert str(caught.value) == f"{big}: 6.0 MB, over the limit of 5.0 MB"


@pytest.mark.parametrize(
    ("table", "line", "problem"),
    [
        ("max_files = -1", 6, "providers.small.attachments.max_files: must be a whole number"),
        ('max_file_mb = "big"', 6, "providers.small.attachments.max_file_mb: must be a number"),
        ("max_total_mb = 0", 6, "providers.small.attachments.max_total_mb: must be greater"),
    ],
)
def test_bad_limits_name_file_line_and_key(
    table: str, line: int, problem: str, tmp_path: Path, fake_provider: FakeProvider
) -> None:
    path = limited_config(tmp_path, fake_provider, table)
    with pytest.raises(ConfigError) as caught:
        load_config(path, {})
    assert f"{path}:{line}: {problem}" in str(caught.value)


# -- the history ----------------------------------------------------------------------------------


def test_the_history_keeps_each_file_once_and_sends_it_again_on_follow_ups(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path / "history.sqlite3")
    shot = recognise("shot.png", PNG)
    same = Attachment(name="again.png", media_type="image/png", kind="image", data=PNG)
    notes = recognise("notes.md", b"# hi\n")
    conv = store.create_conversation()
    store.add_user_message(conv, "first", [shot, notes])
    store.add_user_message(conv, "second", [same])
    rows = sqlite3.connect(tmp_path / "history.sqlite3").execute("SELECT count(*) FROM attachments")
    assert rows.fetchone()[0] == 2  # the PNG once, under both names
    loaded = store.load(conv)
    first, second = loaded.messages
    assert [(a.name, a.kind, a.data) for a in first.attachments] == [
        ("shot.png", "image", PNG),
        ("notes.md", "text", b"# hi\n"),
    ]
    assert second.attachments == (same,)
    # The history a reopened chat continues from carries the files: they go out again.
    conversation = loaded.conversation()
    request = build_request(
        ProviderConfig(name="p", api=Api.MESSAGES, base_url="http://127.0.0.1:9/v1", model="m"),
        conversation,
        None,
    )
    (user,) = request.body["messages"]  # both prompts join one user turn (no answer between)
    kinds = [block["type"] for block in user["content"]]
    assert kinds == ["image", "text", "text", "image", "text"]
    # Exports list them.
    md = to_markdown(loaded)
    sha = shot.sha256[:12]
    assert f"- attached `shot.png` (image/png, {len(PNG):,} bytes, sha256 {sha})" in md
    listed = json.loads(to_json(loaded))["messages"][0]["attachments"]
    assert listed == [
        {
            "name": "shot.png",
            "media_type": "image/png",
            "kind": "image",
            "size": len(PNG),
            "sha256": shot.sha256,
        },
        {
            "name": "notes.md",
            "media_type": "text/markdown",
            "kind": "text",
            "size": 5,
            "sha256": notes.sha256,
        },
    ]
    store.delete(conv)
    db = sqlite3.connect(tmp_path / "history.sqlite3")
    assert db.execute("SELECT count(*) FROM attachments").fetchone()[0] == 0
    store.close()


def test_a_follow_up_sends_the_earlier_files_with_the_history(
    files: Path, fake_provider: FakeProvider
) -> None:
    conversation = Conversation()
    conversation.add_user("what is this?", (recognise("shot.png", PNG),))
    conversation.add_user("and now?")
    request = build_request(fake_provider.provider(Api.CHAT), conversation, None)
    first, second = request.body["messages"]
    assert first["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert second == {"role": "user", "content": "and now?"}
