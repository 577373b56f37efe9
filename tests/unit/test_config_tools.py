"""`[tools.NAME]`, `[mcp.NAME]`, `tool_rounds` and `tool_timeout` in the config: read into
dataclasses, every mistake one ConfigError naming the file, line and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.settings.config import ConfigError, McpServerConfig, ToolConfig, load_config
from app.settings.redaction import mcp_secrets


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    return str(caught.value)


def test_tools_from_a_toml_table_and_from_a_json_file(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    (tmp_path / "search.json").write_text(json.dumps(schema), encoding="utf-8")
    config = load_config(
        write(
            tmp_path,
            'tool_rounds = 4\ntool_timeout = 2.5\n[tools.search]\ndescription = "Find"\n'
            'parameters = "search.json"\n[tools.clock]\n'
            '[tools.add.parameters]\ntype = "object"\nproperties.a.type = "number"\n',
        )
    )
    assert config.tools == {
        "search": ToolConfig("search", "Find", schema),
        "clock": ToolConfig("clock", "", {"type": "object", "properties": {}}),
        "add": ToolConfig("add", "", {"type": "object", "properties": {"a": {"type": "number"}}}),
    }
    assert (config.tool_rounds, config.tool_timeout) == (4, 2.5)
    assert config.warnings == ()


def test_mcp_servers_over_stdio_and_http(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            '[mcp.files]\ncommand = ["python", "-m", "srv"]\nenv = { ROOT = "/tmp" }\n'
            'cwd = "work"\ntimeout = 5\n'
            '[mcp.web]\nurl = "http://127.0.0.1:9/mcp"\n'
            'headers = { Authorization = "Bearer tok-secret-123" }\n',
        )
    )
    assert config.mcp["files"] == McpServerConfig(
        "files", ("python", "-m", "srv"), {"ROOT": "/tmp"}, tmp_path / "work", timeout=5.0
    )
    web = config.mcp["web"]
    assert (web.url, web.headers) == (
        "http://127.0.0.1:9/mcp",
        {"Authorization": "Bearer tok-secret-123"},
    )
    assert "tok-secret-123" in mcp_secrets(web)
    assert "tok-secret-123" not in repr(web)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[tools."get.weather"]\n', 'tools."get.weather": a tool\'s name is sent to the provider'),
        ("[tools.x]\nparameters = 3\n", "tools.x.parameters: must be a table"),
        ('[tools.x.parameters]\ntype = "string"\n', 'the schema\'s top must say type = "object"'),
        ('[tools.x]\nparameters = "missing.json"\n', "tools.x.parameters: cannot read"),
        ("[tools.x]\ndescription = 1\n", "tools.x.description: must be a string"),
        ("[mcp.m]\n", "mcp.m: give command = [...] (a stdio server) or url"),
        ('[mcp.m]\ncommand = ["a"]\nurl = "http://h/x"\n', "mcp.m: give command"),
        ("[mcp.m]\ncommand = []\n", "mcp.m.command: must be a non-empty array of strings"),
        ('[mcp.m]\nurl = "ftp://h/x"\n', "mcp.m.url: must be an http:// or https:// URL"),
        ('[mcp.m]\nurl = "http://h/x"\ncwd = "x"\n', "mcp.m.cwd: is for a command server"),
        ('[mcp.m]\ncommand = ["a"]\nheaders = {}\n', "mcp.m.headers: is for a url server"),
        ('[mcp.m]\ncommand = ["a"]\nenv = { A = 1 }\n', "mcp.m.env.A: must be NAME"),
        ("tool_rounds = 0\n", "tool_rounds: must be a whole number from 1 up, not 0"),
        ("tool_timeout = -1\n", "tool_timeout: must be greater than 0"),
    ],
)
def test_each_mistake_names_its_file_line_and_key(tmp_path: Path, text: str, said: str) -> None:
    message = error_of(tmp_path, text)
    assert str(tmp_path / "config.toml") in message
    assert said in message


def test_a_schema_file_that_is_not_json_says_so(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{nope", encoding="utf-8")
    message = error_of(tmp_path, '[tools.x]\nparameters = "bad.json"\n')
    assert "tools.x.parameters:" in message
    assert "bad.json is not JSON" in message


def test_unknown_keys_in_a_tool_or_server_are_warned_about(tmp_path: Path) -> None:
    config = load_config(
        write(tmp_path, '[tools.x]\ndescripton = "a"\n[mcp.m]\ncommand = ["a"]\nargs = []\n')
    )
    assert any(
        "tools.x.descripton: unknown key, ignored; did you mean description?" in w
        for w in config.warnings
    )
    assert any("mcp.m.args: unknown key" in w for w in config.warnings)


def test_a_crash_report_is_scrubbed_of_mcp_secrets_too(tmp_path: Path) -> None:
    from app.settings.api_keys import config_secrets

    config = load_config(
        write(
            tmp_path,
            '[mcp.web]\nurl = "http://h/mcp"\nheaders = { "X-Api-Key" = "hdr-secret-9876" }\n'
            '[mcp.cmd]\ncommand = ["x"]\nenv = { GITHUB_TOKEN = "ghp_envsecret123" }\n',
        )
    )
    secrets = config_secrets(config, {})
    assert "hdr-secret-9876" in secrets
    assert "ghp_envsecret123" in secrets
