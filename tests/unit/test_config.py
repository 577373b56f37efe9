"""Config loading against real files: every error names file, line and key; keys never leak."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.demo.server import with_demo_providers
from app.headless.provider_list import format_providers
from app.settings.api_keys import MissingApiKey, require_api_key, resolve_api_key
from app.settings.config import (
    DEMO,
    Config,
    ConfigError,
    ProviderConfig,
    demo_provider,
    load_config,
)
from app.settings.paths import config_path, data_dir, locate_config, state_path, user_themes_dir
from app.settings.toml_lines import KeyLines, dotted, split_keys
from app.wire.engine import Api

ROOT = Path(__file__).resolve().parents[2]
SECRET = "sk-live-0123456789abcdef"

KENARI = """\
[providers.kenari]
api = "chat"
base_url = "https://kenari.id/v1"
api_key_env = "KENARI_API_KEY"
model = "step-3-7-flash:free"
"""


def write(tmp_path: Path, text: str, mode: int = 0o600, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def load(path: Path) -> Config:
    return load_config(path, environ={})


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load(path)
    return str(caught.value)


# ── a valid file ────────────────────────────────────────────────────────────────────────────


def test_full_schema_is_read_into_dataclasses(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
default = "kimi"
system = "Be brief."
idle_timeout = 30
connect_timeout = 2.5

[ui]
theme = "nord"
reasoning_open = true
reading_width = 120

[providers.kimi]
api = "chat"
base_url = "https://api.moonshot.ai/v1/"
api_key_env = "MOONSHOT_API_KEY"
model = "kimi-k3"
models = ["kimi-k2.6", "kimi-k3"]
headers = { "X-Title" = "Triptych" }
max_tokens = 1000
price_in = 0.6
price_out = 2
price_cached = 0.15

[providers.kimi.params]
reasoning_effort = "high"
stream_options = { include_usage = true }
""",
    )
    config = load(path)
    assert config.path == path
    assert config.default == "kimi"
    assert config.system == "Be brief."
    assert (config.idle_timeout, config.connect_timeout) == (30.0, 2.5)
    assert (config.ui.theme, config.ui.reasoning_open) == ("nord", True)
    assert config.ui.reading_width == 120
    assert config.warnings == ()
    kimi = config.provider()
    assert kimi.api is Api.CHAT
    assert kimi.base_url == "https://api.moonshot.ai/v1"  # trailing slash dropped
    assert kimi.endpoint_url == "https://api.moonshot.ai/v1/chat/completions"
    assert kimi.model_choices == ("kimi-k3", "kimi-k2.6")
    assert kimi.headers == {"X-Title": "Triptych"}
    assert kimi.params == {"reasoning_effort": "high", "stream_options": {"include_usage": True}}
    assert (kimi.max_tokens, kimi.price_in, kimi.price_out, kimi.price_cached) == (
        1000,
        0.6,
        2.0,
        0.15,
    )
    assert kimi.source == path
    assert list(config.providers)[:2] == [DEMO, "kimi"]
    assert [n for n, p in config.providers.items() if p.origin == "config"] == ["kimi"]


def test_defaults_when_optional_keys_are_absent(tmp_path: Path) -> None:
    config = load(write(tmp_path, KENARI))
    assert config.default == DEMO
    assert (config.idle_timeout, config.connect_timeout) == (150.0, 10.0)
    assert (config.ui.theme, config.ui.reasoning_open, config.system) == (None, False, None)
    assert config.ui.reading_width == 100  # the default cap; 0 means none
    kenari = config.providers["kenari"]
    assert (kenari.max_tokens, kenari.models, kenari.params, kenari.price_in) == (
        4096,
        (),
        {},
        None,
    )


def test_demo_always_exists_even_without_a_file() -> None:
    config = Config(path=None)
    assert config.provider() == demo_provider()
    demo = config.providers[DEMO]
    assert (demo.api, demo.model, demo.api_key_env, demo.api_key) == (Api.CHAT, "demo", None, None)
    served = config.with_provider(demo_provider("http://127.0.0.1:4321/v1"))
    assert served.provider(DEMO).endpoint_url == "http://127.0.0.1:4321/v1/chat/completions"
    assert config.provider(DEMO).base_url == ""  # the original is unchanged


def test_unknown_provider_name_lists_the_configured_ones(tmp_path: Path) -> None:
    config = load(write(tmp_path, KENARI))
    with pytest.raises(ConfigError, match=r"unknown provider 'nope'; configured: demo, kenari"):
        config.provider("nope")


# ── errors: file, line and key ──────────────────────────────────────────────────────────────


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, 'default = "demo"\n\n[providers.kenari\napi = "chat"\n')
    message = error_of(path)
    assert message.startswith(f"{path}:3: invalid TOML:")
    assert "line 3" in message


@pytest.mark.parametrize(
    ("body", "line", "key", "text"),
    [
        ('api = 3\nbase_url = "https://x/v1"\nmodel = "m"\n', 2, "providers.p.api", "an integer"),
        (
            'api = "chat2"\nbase_url = "https://x/v1"\nmodel = "m"\n',
            2,
            "providers.p.api",
            "unknown api 'chat2'; valid: chat, messages, responses",
        ),
        ('base_url = "https://x/v1"\nmodel = "m"\n', 1, "providers.p.api", "missing: one of chat"),
        ('api = "chat"\nmodel = "m"\n', 1, "providers.p.base_url", "missing"),
        ('api = "chat"\nbase_url = "https://x/v1"\n', 1, "providers.p.model", "needs a model"),
        ('api = "chat"\nbase_url = "https://x/v1"\nmodel = ""\n', 4, "providers.p.model", "empty"),
        ('api = "chat"\nbase_url = "x.org/v1"\nmodel = "m"\n', 3, "providers.p.base_url", "http"),
        (
            'api = "chat"\nbase_url = "https://x/v1/chat/completions"\nmodel = "m"\n',
            3,
            "providers.p.base_url",
            "ends with the endpoint '/chat/completions'",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nmax_tokens = 0\n',
            5,
            "providers.p.max_tokens",
            "positive integer",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nmax_tokens = "9"\n',
            5,
            "providers.p.max_tokens",
            "not a string",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nprice_in = -1\n',
            5,
            "providers.p.price_in",
            "must not be negative",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nprice_out = "1"\n',
            5,
            "providers.p.price_out",
            "must be a number",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nmodels = "a"\n',
            5,
            "providers.p.models",
            "array of strings",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nmodels = ["a", 2]\n',
            5,
            "providers.p.models",
            "only non-empty strings",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nheaders = { X-A = 1 }\n',
            5,
            "providers.p.headers.X-A",
            "must be a string",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nparams = 1\n',
            5,
            "providers.p.params",
            "must be a table",
        ),
        (
            'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\napi_key_env = 1\n',
            5,
            "providers.p.api_key_env",
            "not an integer",
        ),
    ],
)
def test_provider_errors_name_file_line_and_key(
    tmp_path: Path, body: str, line: int, key: str, text: str
) -> None:
    path = write(tmp_path, "[providers.p]\n" + body)
    message = error_of(path)
    assert message.startswith(f"{path}:{line}: {key}: "), message
    assert text in message


@pytest.mark.parametrize(
    ("text", "line", "key", "detail"),
    [
        ('\ndefault = "nope"\n' + KENARI, 2, "default", "no provider named 'nope'"),
        ("default = 1\n", 1, "default", "must be a non-empty string, not an integer"),
        ("idle_timeout = 0\n", 1, "idle_timeout", "greater than 0"),
        ('connect_timeout = "5"\n', 1, "connect_timeout", "must be a number, not a string"),
        ("system = 3\n", 1, "system", "must be a string"),
        ("providers = 3\n", 1, "providers", "must be a table"),
        ('[ui]\ntheme = "x"\nreasoning_open = "yes"\n', 3, "ui.reasoning_open", "true or false"),
        ("[ui]\ntheme = 5\n", 2, "ui.theme", "not an integer"),
        (
            '[ui]\nreading_width = "wide"\n',
            2,
            "ui.reading_width",
            "whole number of columns, not a string",
        ),
        (
            "[ui]\n\nreading_width = 80.5\n",
            3,
            "ui.reading_width",
            "whole number of columns, not 80.5",
        ),
        ("[ui]\nreading_width = true\n", 2, "ui.reading_width", "not a boolean"),
        ("[ui]\nreading_width = -1\n", 2, "ui.reading_width", "0 (no cap) or 20 and up"),
        ("[ui]\nreading_width = 12\n", 2, "ui.reading_width", "0 (no cap) or 20 and up"),
        ("ui = []\n", 1, "ui", "must be a table, not an array"),
        ("[providers]\nkenari = 3\n", 2, "providers.kenari", "must be a table"),
    ],
)
def test_top_level_errors_name_file_line_and_key(
    tmp_path: Path, text: str, line: int, key: str, detail: str
) -> None:
    path = write(tmp_path, text)
    message = error_of(path)
    assert message.startswith(f"{path}:{line}: {key}: "), message
    assert detail in message


def test_unknown_default_lists_configured_providers(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, 'default = "kenar"\n' + KENARI))
    assert "no provider named 'kenar'; configured: demo, kenari" in message


def test_redefining_demo_is_rejected_with_a_reason(tmp_path: Path) -> None:
    path = write(
        tmp_path, '\n[providers.demo]\napi = "chat"\nbase_url = "http://x/v1"\nmodel = "m"\n'
    )
    message = error_of(path)
    assert message.startswith(f"{path}:2: providers.demo: ")
    assert "built-in" in message
    assert "another name" in message


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'default = "nope"\n'
        '[providers.a]\napi = "x"\nbase_url = "https://a/v1"\nmodel = "m"\n'
        '[providers.b]\napi = "chat"\nmodel = "m"\n',
    )
    with pytest.raises(ConfigError) as caught:
        load(path)
    problems = caught.value.problems
    assert len(problems) == 3  # in file order
    assert problems[0].startswith(f"{path}:1: default: no provider named 'nope'")
    assert problems[1].startswith(f"{path}:3: providers.a.api: ")
    assert problems[2].startswith(f"{path}:6: providers.b.base_url: missing")
    assert str(caught.value) == "\n".join(problems)


def test_quoted_and_dotted_keys_are_located(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[providers."my box"]\napi = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\n'
        "[providers.other]\n"
        'api = "chat"\nbase_url = "https://x/v1"\nmodel = "m"\nparams.temperature = 1\n'
        "max_tokens = -5\n",
    )
    message = error_of(path)
    assert message.startswith(f"{path}:10: providers.other.max_tokens: must be a positive integer")

    path = write(tmp_path, '[providers."my box"]\napi = "nope"\n', name="quoted.toml")
    assert f'{path}:2: providers."my box".api: unknown api' in error_of(path)


def test_api_key_env_holding_a_key_is_an_error_that_never_echoes_it(tmp_path: Path) -> None:
    path = write(tmp_path, KENARI.replace('"KENARI_API_KEY"', f'"{SECRET}"'))
    message = error_of(path)
    assert message.startswith(f"{path}:4: providers.kenari.api_key_env: ")
    assert "NAME of an environment variable" in message
    assert SECRET not in message


def test_errors_about_a_key_never_contain_it(tmp_path: Path) -> None:
    path = write(tmp_path, KENARI + f'api_key = "{SECRET}"\nmax_tokens = "x"\nnonsense = 1\n')
    message = error_of(path)
    assert "providers.kenari.max_tokens" in message
    assert SECRET not in message


# ── files that cannot be read ───────────────────────────────────────────────────────────────


def test_explicit_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(
        ConfigError, match=r"nope.toml: config file not found \(given by --config\)"
    ):
        load_config(missing, environ={})
    with pytest.raises(ConfigError, match=r"nope.toml: config file not found .*TRIPTYCH_CONFIG"):
        load_config(None, environ={"TRIPTYCH_CONFIG": str(missing)})


def test_missing_file_at_default_location_means_the_demo_and_the_catalogue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty"))
    config = load_config(None, environ={})
    assert config.path is None
    assert next(iter(config.providers)) == DEMO
    assert {p.origin for n, p in config.providers.items() if n != DEMO} == {"builtin"}
    assert config.default == DEMO  # no key set: the demo


def test_non_utf8_and_directory_are_errors_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'system = "caf\xe9"\n')
    assert error_of(path).startswith(f"{path}: not UTF-8")
    assert error_of(tmp_path).startswith(f"{tmp_path}: cannot read config file")


# ── locations ──────────────────────────────────────────────────────────────────────────────


def test_config_location_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / "triptych").mkdir(parents=True)
    default_file = write(tmp_path / "xdg" / "triptych", 'system = "from default"\n' + KENARI)
    env_file = write(tmp_path, 'system = "from env"\n' + KENARI, name="env.toml")
    flag_file = write(tmp_path, 'system = "from flag"\n' + KENARI, name="flag.toml")
    env = {"TRIPTYCH_CONFIG": str(env_file)}

    assert load_config(None, {}).system == "from default"
    assert load_config(None, env).system == "from env"
    assert load_config(flag_file, env).system == "from flag"
    assert config_path(None, {}) == default_file
    assert locate_config(None, env).chosen_by == "$TRIPTYCH_CONFIG"
    assert locate_config(flag_file, env).explicit
    assert not locate_config(None, {"TRIPTYCH_CONFIG": ""}).explicit


def test_environment_is_read_at_call_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRIPTYCH_CONFIG", str(tmp_path / "a.toml"))
    assert config_path() == tmp_path / "a.toml"
    monkeypatch.setenv("TRIPTYCH_CONFIG", str(tmp_path / "b.toml"))
    assert config_path() == tmp_path / "b.toml"


def test_data_state_and_theme_locations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    assert data_dir({}) == tmp_path / "share" / "triptych"
    assert state_path({}) == tmp_path / "share" / "triptych" / "state.toml"
    own = {"TRIPTYCH_DATA_DIR": str(tmp_path / "mine")}
    assert data_dir(own) == tmp_path / "mine"
    assert state_path(own) == tmp_path / "mine" / "state.toml"
    assert user_themes_dir() == tmp_path / "conf" / "triptych" / "themes"


# ── warnings ───────────────────────────────────────────────────────────────────────────────


def test_unknown_keys_are_warnings_with_file_line_and_key(tmp_path: Path) -> None:
    path = write(tmp_path, 'colour = "red"\n[ui]\nfont = "x"\n' + KENARI + "temperature = 1\n")
    config = load(path)
    assert config.warnings == (
        f"{path}:1: colour: unknown key, ignored (known: connect_timeout, default, "
        "idle_timeout, keep_stream_mib, mcp, prompts, providers, system, tool_rounds, "
        "tool_timeout, tools, ui)",
        f"{path}:3: ui.font: unknown key, ignored (known: reading_width, reasoning_open, theme)",
        f"{path}:9: providers.kenari.temperature: unknown key, ignored (known: api, api_key, "
        "api_key_env, attachments, base_url, context_window, headers, include_usage, "
        "max_concurrency, max_tokens, model, models, params, price_cached, price_in, "
        "price_out, stream_end)",
    )
    assert "kenari" in config.providers


def test_key_in_world_readable_file_warns_without_the_key(tmp_path: Path) -> None:
    text = KENARI + f'api_key = "{SECRET}"\nheaders = {{ Authorization = "Bearer {SECRET}" }}\n'
    path = write(tmp_path, text, mode=0o644)
    warnings = load(path).warnings
    assert len(warnings) == 2
    assert warnings[0].startswith(f"{path}:6: providers.kenari.api_key: ")
    assert warnings[1].startswith(f"{path}:7: providers.kenari.headers.Authorization: ")
    assert all("world-readable" in w and f"chmod 600 {path}" in w for w in warnings)
    assert not any(SECRET in w for w in warnings)

    write(tmp_path, text, mode=0o640)
    assert load(path).warnings == ()


# ── keys ───────────────────────────────────────────────────────────────────────────────────


def test_key_resolution_prefers_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path, KENARI + 'api_key = "from-file"\n')
    kenari = load(path).providers["kenari"]
    assert resolve_api_key(kenari, {"KENARI_API_KEY": "from-env"}) == "from-env"
    assert resolve_api_key(kenari, {"KENARI_API_KEY": "  "}) == "from-file"
    assert require_api_key(kenari, {}) == "from-file"


def test_missing_key_names_the_variable_and_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, KENARI)
    kenari = load(path).providers["kenari"]
    assert resolve_api_key(kenari, {}) is None
    with pytest.raises(MissingApiKey) as caught:
        require_api_key(kenari, {"OTHER": "x"})
    assert str(caught.value) == (
        f"provider 'kenari' needs an API key: set KENARI_API_KEY (named by api_key_env in {path})"
    )
    assert isinstance(caught.value, ConfigError)  # so the CLI exits 2 for it too
    assert require_api_key(kenari, {"KENARI_API_KEY": SECRET}) == SECRET


def test_keyless_local_provider_needs_no_key(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[providers.ollama]\napi = "chat"\nbase_url = "http://localhost:11434/v1"\n'
        'model = "llama3.2"\n',
    )
    assert require_api_key(load(path).providers["ollama"], {}) is None


def test_repr_hides_key_and_headers() -> None:
    provider = ProviderConfig(
        name="p",
        api=Api.CHAT,
        base_url="https://x/v1",
        model="m",
        api_key=SECRET,
        headers={"Authorization": f"Bearer {SECRET}"},
    )
    assert SECRET not in repr(provider)
    assert SECRET not in repr(Config(path=None, providers={"p": provider}))
    assert "model='m'" in repr(provider)


def test_provider_list_shows_status_never_the_key(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'default = "kenari"\n'
        + KENARI
        + f'[providers.filed]\napi = "messages"\nbase_url = "https://u:{SECRET}@x.io/v1?key={SECRET}"\n'
        + f'model = "m"\napi_key = "{SECRET}"\nheaders = {{ x-api-key = "{SECRET}" }}\n'
        + '[providers.local]\napi = "responses"\nbase_url = "http://localhost:8000/v1/"\n'
        + 'model = "q"\n',
    )
    config = load(path)
    listing = format_providers(config, {"KENARI_API_KEY": SECRET})
    assert SECRET not in listing
    lines = listing.splitlines()
    assert lines[0].split() == ["provider", "api", "model", "key", "from", "base", "url"]
    assert lines[1].split()[:3] == ["demo", "chat", "demo"]
    assert lines[2].split()[:5] == ["*", "kenari", "chat", "step-3-7-flash:free", "set"]
    assert "https://x.io/v1" in lines[3]
    assert "in file" in lines[3]
    assert "none (keyless)" in lines[4]
    assert f"config: {path}" in listing

    assert "http://localhost:8000/v1" in lines[4]

    missing = format_providers(config, {})
    assert "MISSING: set $KENARI_API_KEY" in missing

    demos = format_providers(with_demo_providers(config), {})
    assert [line.split()[3] for line in demos.splitlines() if "demo-" in line] == ["not", "not"]


# ── the example file ───────────────────────────────────────────────────────────────────────


def test_example_file_loads_cleanly_and_defines_nothing_the_catalogue_has() -> None:
    example = ROOT / "config.example.toml"
    config = load_config(example, environ={})
    assert config.warnings == ()
    assert config.default == DEMO  # works with no keys at all
    assert [n for n, p in config.providers.items() if p.origin == "config"] == []
    assert set(config.prompts) == {"terse", "reviewer"}
    assert all(p.api_key is None for p in config.providers.values())


# ── the key locator ────────────────────────────────────────────────────────────────────────


def test_key_lines_fall_back_to_the_nearest_known_key() -> None:
    lines = KeyLines(
        'a = 1\ns = """\nfake = 2\n"""\n[t.u]\nv.w = { x = 1 }\n[[arr]]\nk = 1\n'
        "[providers.'lit.name']\nkey = 1\n"
    )
    assert lines.line_of(("a",)) == 1
    assert lines.line_of(("fake",)) is None  # inside a multi-line string
    assert lines.line_of(("t",)) == 5  # first line below it
    assert lines.line_of(("t", "u", "v", "w")) == 6
    assert lines.line_of(("t", "u", "v", "w", "x")) == 6  # inside an inline table
    assert lines.line_of(("arr", "k")) == 8
    assert lines.line_of(("providers", "lit.name", "key")) == 10
    assert lines.line_of(("nowhere",)) is None


def test_dotted_round_trips_through_split_keys() -> None:
    keys = ("providers", "my box", "a.b", "plain-1")
    assert dotted(keys) == 'providers."my box"."a.b".plain-1'
    assert split_keys(dotted(keys)) == keys


def test_provider_list_keeps_ipv6_hosts_readable(tmp_path: Path) -> None:
    path = write(
        tmp_path, '[providers.v6]\napi = "chat"\nbase_url = "http://[::1]:8080/v1"\nmodel = "m"\n'
    )
    assert "http://[::1]:8080/v1" in format_providers(load(path), {})


def test_include_usage_is_a_provider_switch_that_must_be_a_boolean(tmp_path: Path) -> None:
    path = write(tmp_path, KENARI)
    assert load_config(path, environ={}).providers["kenari"].include_usage is True
    path = write(tmp_path, KENARI + "include_usage = false\n", name="off.toml")
    assert load_config(path, environ={}).providers["kenari"].include_usage is False
    path = write(tmp_path, KENARI + 'include_usage = "no"\n', name="bad.toml")
    message = error_of(path)
    assert "providers.kenari.include_usage: must be true or false, not a string" in message


def test_keep_stream_mib_caps_each_answers_kept_stream(tmp_path: Path) -> None:
    assert load(write(tmp_path, KENARI)).keep_stream_bytes == 8 * 1024 * 1024
    config = load(write(tmp_path, "keep_stream_mib = 0.5\n" + KENARI, name="half.toml"))
    assert config.keep_stream_bytes == 512 * 1024
    message = error_of(write(tmp_path, "keep_stream_mib = -1\n" + KENARI, name="bad.toml"))
    assert "keep_stream_mib: must not be negative" in message
