"""Command line entry point: `triptych` (the TUI) and its headless subcommands.

    triptych [--provider NAME] [--model M] [--config FILE] [--continue] [--compare A,B]
             [--system-preset NAME]
    triptych ask [PROMPT] [--provider NAME | --api API --base-url URL --model M]
                 [--api-key-env VAR] [--system TEXT | --system-preset NAME] [--reasoning]
                 [--json] [--record FILE]
    triptych ask [PROMPT] --compare A,B[,C[,D]] [--system TEXT | --system-preset NAME]
                 [--reasoning] [--json] [--record FILE]
    triptych providers | config [--example] | history
    triptych export ID [--format md|json] [--raw] [--all-branches]
    triptych tools [--json]
    triptych replay FILE [--api API] [--entry N] [--json] [--ui [--speed X]]
    triptych serve [--host 127.0.0.1] [--port 8000] [--public-url URL] [--token T]
    triptych leaderboard [--json] [--since DATE] [--tag TAG]
    triptych batch FILE --compare A,B[,...] [--concurrency N] [--repeat K] [--system TEXT]
                   [--out PATH] [--tag TAG]

Exit status 2 means a usage or configuration problem (the message says what to fix, never with
a traceback). The UI is imported lazily, so headless commands start fast and never load Textual.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, TextIO, cast

from app.settings.config import (
    Config,
    ConfigError,
    ProviderConfig,
    base_url_problem,
    load_config,
)
from app.settings.paths import create_config_hint, example_config, locate_config
from app.wire.api import Api

if TYPE_CHECKING:
    import argparse

    from app.headless.ask import Question
    from app.headless.ask_tools import GivenResult, ToolSetup
    from app.headless.batch import BatchJob
    from app.headless.batch_file import BatchPrompt
    from app.headless.batch_results import Kept
    from app.providers.params import RequestParams
    from app.store import Store
    from app.wire.attachment import Attachment

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
CUSTOM_PROVIDER = "custom"
NOT_FOUND = 1  # `export ID` of an id the history does not hold


class UsageError(Exception):
    """Bad flags that argparse cannot see (combinations, values); exit status 2."""


def no_arguments() -> argparse.Namespace:
    """What `build_parser().parse_args([])` gives, without building the parser: plain
    `triptych` starts the UI, and the parser's dozen subcommands cost its first frame ~3 ms,
    and argparse itself with gettext ~2 ms more. The same attributes on a plain
    namespace; tests/unit/test_cli_no_arguments.py keeps the two equal."""
    args = SimpleNamespace(
        config=None,
        provider=None,
        model=None,
        continue_last=False,
        compare=None,
        blind=False,
        system_preset=None,
        command=None,
    )
    return cast("argparse.Namespace", args)


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    try:
        args = _parse(given) if given else no_arguments()
    except SystemExit as exc:  # --help, --version, or a usage error argparse already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return _dispatch(args, os.environ, sys.stdin, sys.stdout, sys.stderr)
    except ConfigError as exc:
        for problem in exc.problems:
            say(sys.stderr, problem)
        return EXIT_USAGE
    except UsageError as exc:
        say(sys.stderr, str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `triptych ask ... | head`: the reader left; that is fine
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 0
    except Exception:  # a bug: its report may quote anything, so it is scrubbed first
        sys.stderr.write(crash_report(args, os.environ))
        return 1


def say(stderr: TextIO, message: str) -> None:
    """`triptych: MESSAGE` on one line of stderr. A message names what came from outside (a
    path, a tool or preset name, a server's words): every control in it is shown as its
    picture, never sent to the terminal, and a newline in a name cannot start a line."""
    from app.display.sanitize import literal_line

    print(f"triptych: {literal_line(message)}", file=stderr)


def _parse(given: list[str]) -> argparse.Namespace:
    from app.cli_parser import build_parser

    return build_parser().parse_args(given)


def _replay_ui(args: argparse.Namespace, stderr: TextIO) -> int:
    """`replay FILE --ui`: serve the recording on loopback and open the app on it."""
    from app.demo.replay_server import ReplayServer, parse_speed
    from app.display.sanitize import clean
    from app.headless.replay import open_recording
    from app.headless.replay_plan import replay_plan
    from app.providers.captures import EntryChoice
    from app.providers.record import RecordingError

    if args.json:
        raise UsageError("--json goes without --ui (it prints what replay decodes)")
    try:
        speed = parse_speed(args.speed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        api = Api(args.api) if args.api else None
        exchanges = open_recording(args.file, api=api, entry=args.entry)
    except EntryChoice as exc:
        sys.stdout.write("".join(clean(line) + "\n" for line in exc.listing))
        print(f"triptych: {clean(str(exc))}", file=stderr)
        return EXIT_USAGE
    except RecordingError as exc:
        say(stderr, f"cannot replay {exc}")
        return EXIT_USAGE
    with ReplayServer(exchanges, speed) as server:
        providers: dict[str, ProviderConfig] = {}
        names: list[str | None] = []
        for number in range(len(exchanges)):
            try:
                provider = server.provider_for(number)
            except ValueError as exc:
                say(stderr, f"skipped {exc}")
                names.append(None)
                continue
            providers[provider.name] = provider
            names.append(provider.name)
        plan = replay_plan(exchanges, names)
        if not plan.steps:
            say(stderr, f"cannot replay {args.file}: no answer in it to replay")
            return EXIT_USAGE
        first = plan.steps[0][1]
        config = Config(path=None, default=first[0], providers=providers)
        run_tui: Callable[..., int] = _import_run_tui()
        return run_tui(
            config,
            provider=first[0],
            model=None,
            compare=list(first) if plan.side_by_side else None,
            continue_last=False,
            replay=plan,
        )


def crash_report(args: argparse.Namespace, environ: Mapping[str, str]) -> str:
    """The exception being handled and its frames (no locals), with every secret the config
    and the flags name replaced; what to report, never a key."""
    import traceback

    from app.display.sanitize import literal
    from app.settings.api_keys import config_secrets
    from app.settings.redaction import scrub

    secrets: list[str] = []
    with contextlib.suppress(Exception):  # a config that cannot be read names no secrets
        secrets += config_secrets(load_config(args.config, environ), environ)
    named = getattr(args, "api_key_env", None)
    if named and environ.get(named):
        secrets.append(environ[named].strip())
    with contextlib.suppress(Exception):  # `--param api_key=…`
        from app.providers.params import parse_assignment
        from app.settings.redaction import param_secrets

        secrets += param_secrets(dict(map(parse_assignment, getattr(args, "param", []))))
    body = literal(scrub(traceback.format_exc(), secrets))  # it may quote a server's words
    return f"triptych: Triptych crashed; please report this:\n{body}"


def _dispatch(
    args: argparse.Namespace,
    environ: Mapping[str, str],
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    command: str | None = args.command
    if command == "history":
        return _history(args, stdout, stderr)
    if command == "export":
        return _export(args, stdout, stderr)
    if command == "replay":
        if args.ui:
            return _replay_ui(args, stderr)
        if args.speed != "1":
            raise UsageError("--speed goes with --ui (replay without --ui prints at once)")
        from app.headless.replay import replay

        api = Api(args.api) if args.api else None
        return replay(args.file, stdout, stderr, api=api, entry=args.entry, as_json=args.json)
    if command == "config":
        return _config(args, environ, stdout)
    if command == "serve":
        return _serve(args, environ, stderr)
    if command == "leaderboard":
        return _leaderboard(args, stdout, stderr)
    # a blind comparison's app shows the warnings itself, those naming a pane after the vote
    blind_tui = command is None and args.blind and bool(args.compare)
    config = _load(args, environ, stderr, quiet=blind_tui)
    if command in ("ask", "batch", None):
        config = _local_servers_named(args, config, environ)
    if command == "providers":
        return _providers(args, config, environ, stdout)
    if command == "tools":
        return _tools(args, config, stdout, stderr)
    if command == "ask":
        return _ask(args, config, environ, stdin, stdout, stderr)
    if command == "batch":
        return _batch(args, config, environ, stdout, stderr)
    return _tui(args, config)


def _local_servers_named(
    args: argparse.Namespace, config: Config, environ: Mapping[str, str]
) -> Config:
    """A local server the command names (`--provider ollama`, in `--compare`, or the file's
    `default`) is probed now, and added with the models it lists; one that does not answer is
    a usage error saying so. Nothing is probed when no local server is named."""
    from app.settings.catalogue import BY_NAME

    names = [getattr(args, "provider", None)]
    compare = getattr(args, "compare", None)
    if compare:
        names += [item.strip().partition(":")[0] for item in compare.split(",")]
    elif names[0] is None:
        names.append(config.default)
    wanted = [
        BY_NAME[name]
        for name in dict.fromkeys(n for n in names if n)
        if name not in config.providers and name in BY_NAME and BY_NAME[name].local
    ]
    if not wanted:
        return config
    from app.providers.local import not_running, probe_now, with_local

    found = probe_now(wanted)
    answered = {provider.name for provider in found}
    for entry in wanted:
        if entry.name not in answered:
            raise UsageError(not_running(entry))
    return with_local(config, found, locate_config(args.config, environ).path)


def _providers(
    args: argparse.Namespace, config: Config, environ: Mapping[str, str], stdout: TextIO
) -> int:
    from app.headless.provider_list import format_providers, format_providers_json

    if not args.catalogue:
        from app.providers.local import probe_now, with_local

        config = with_local(config, probe_now(), locate_config(args.config, environ).path)
    if args.catalogue:
        if args.json:
            raise UsageError("--catalogue prints TOML; --json lists the providers: pick one")
        from app.settings.catalogue import catalogue_toml

        stdout.write(catalogue_toml())
        return 0
    if args.json:
        stdout.write(format_providers_json(config, environ))
        return 0
    stdout.write(format_providers(config, environ))
    if config.path is None:
        stdout.write(create_config_hint(locate_config(args.config, environ).path) + "\n")
    return 0


def _tools(args: argparse.Namespace, config: Config, stdout: TextIO, stderr: TextIO) -> int:
    from app.headless.ask_tools import ToolSetup
    from app.headless.tool_list import list_tools
    from app.tools.mcp_client import missing_sdk_message, sdk_installed

    servers = tuple(config.mcp.values())
    if servers and not sdk_installed():
        raise UsageError(missing_sdk_message(servers))
    setup = ToolSetup(
        local=tuple(config.tools.values()), servers=servers, timeout=config.tool_timeout
    )
    return list_tools(setup, stdout, stderr, as_json=args.json)


def _config(args: argparse.Namespace, environ: Mapping[str, str], stdout: TextIO) -> int:
    """`config --example` prints the example; `config` says which file is read, if it exists."""
    if args.example:
        stdout.write(example_config())
        return 0
    location = locate_config(args.config, environ)
    if location.path.exists():
        stdout.write(f"config: {location.path} ({location.chosen_by})\n")
    else:
        stdout.write(f"config: {location.path} ({location.chosen_by}; not found)\n")
        stdout.write(create_config_hint(location.path) + "\n")
    return 0


def _load(
    args: argparse.Namespace, environ: Mapping[str, str], stderr: TextIO, *, quiet: bool = False
) -> Config:
    from app.demo.names import with_demo_providers  # not the server: the TUI may not use it

    config = load_config(args.config, environ)
    for warning in () if quiet else config.warnings:
        say(stderr, f"warning: {warning}")
    return with_demo_providers(config)


def _tui(args: argparse.Namespace, config: Config) -> int:
    from dataclasses import replace

    if args.system_preset is not None:  # an unknown name is a ConfigError: exit 2 before any UI
        config = replace(config, system=config.preset(args.system_preset).system)
    compare = [n.strip() for n in args.compare.split(",") if n.strip()] if args.compare else None
    if args.provider is not None:
        config.provider(args.provider)  # an unknown name is a ConfigError: exit 2 before any UI
    if compare is not None:
        _check_compare(args, config)
    elif args.blind:
        raise UsageError("--blind hides who is who in a comparison: give --compare A,B too")
    try:
        run_tui: Callable[..., int] = _import_run_tui()
    except ImportError as exc:
        raise UsageError(f"the terminal UI is not available in this build ({exc})") from None
    return run_tui(
        config,
        provider=args.provider,
        model=args.model,
        compare=compare,
        continue_last=args.continue_last,
        blind=args.blind,
    )


def _serve(args: argparse.Namespace, environ: Mapping[str, str], stderr: TextIO) -> int:
    """`triptych serve`: the config is checked here first (exit 2 on a bad one), then each
    browser tab runs `triptych` with the same top-level flags."""
    from app.ui import serve

    if not serve.serve_available():
        raise UsageError(serve.INSTALL_HINT)
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be a number from 1 to 65535, not {args.port}")
    if args.token is not None and not serve.valid_token(args.token):
        raise UsageError("--token takes letters, digits and - . _ ~ only (it goes into a URL)")
    if args.public_url is not None and not serve.valid_public_url(args.public_url):
        raise UsageError(
            f"--public-url must be an http:// or https:// URL, not {args.public_url!r}"
        )
    config = _load(args, environ, stderr)
    if args.provider is not None:
        config.provider(args.provider)
    if args.system_preset is not None:
        config.preset(args.system_preset)
    forwarded: list[str] = []
    if args.config is not None:
        forwarded += ["--config", str(Path(args.config).resolve())]
    for flag, value in (
        ("--provider", args.provider),
        ("--model", args.model),
        ("--system-preset", args.system_preset),
        ("--compare", args.compare),
    ):
        if value is not None:
            forwarded += [flag, value]
    if args.blind:
        forwarded.append("--blind")
    if args.host not in serve.LOCAL_HOSTS:
        print(
            f"triptych: warning: serving on {args.host}: over plain HTTP the URL's token crosses "
            "the network in clear; anyone who has it uses this app, with your API keys",
            file=stderr,
        )
    if args.host in serve.WILDCARD_HOSTS and args.public_url is None:
        print(
            "triptych: warning: browsers on other machines are refused unless --public-url "
            "gives the address they use",
            file=stderr,
        )
    token = serve.new_token() if args.token is None else args.token
    try:
        serve.run_server(forwarded, args.host, args.port, args.public_url, token)
    except OSError as exc:
        raise UsageError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
        ) from None
    return 0


def _check_compare(args: argparse.Namespace, config: Config) -> None:
    from app.compare import CompareSpecError, parse_compare

    if args.continue_last:
        raise UsageError("--compare starts a new comparison and --continue reopens one: pick one")
    if args.model is not None:
        raise UsageError("--model is for one provider; with --compare give NAME:MODEL")
    try:
        parse_compare(args.compare, config)  # 2 to 4 known providers, or exit 2 now
    except CompareSpecError as exc:
        raise UsageError(str(exc)) from None


def _import_run_tui() -> Callable[..., int]:
    """The UI's entry point. The cyclic collector is off from here to the first frame (the app
    turns it back on there, once it has frozen what start-up made): Textual's and the app's
    imports and the first screen are all objects that live for good, which a full collection
    walked for ~30 ms of a first frame, and young ones for ~20 more."""
    gc.disable()
    try:
        from app.ui.app import run_tui
    except ImportError:
        gc.enable()
        raise
    return run_tui


# -- ask ---------------------------------------------------------------------------------------


def _ask(
    args: argparse.Namespace,
    config: Config,
    environ: Mapping[str, str],
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    from app.headless.ask import AskJob, run_ask
    from app.settings.api_keys import MissingApiKey, require_api_key

    if args.compare:
        return _ask_compare(args, config, environ, stdin, stdout, stderr)
    provider = ask_provider(args, config)
    try:
        key = require_api_key(provider, environ)
    except MissingApiKey as exc:
        raise UsageError(str(exc)) from None
    question = _question(args, config, environ, stdin, [provider], stderr)
    job = AskJob(provider=provider, api_key=key, question=question, tools=tool_setup(args, config))
    return run_ask(job, stdout, stderr)


def tool_setup(args: argparse.Namespace, config: Config) -> ToolSetup:
    """What the tool flags and the config choose; every contradiction is a usage error."""
    from app.headless.ask_tools import ToolSetup
    from app.tools.mcp_client import missing_sdk_message, sdk_installed

    if args.tools == "auto" and not args.yes:
        raise UsageError("--tools auto runs MCP tools without asking: add --yes to say so")
    if args.yes and args.tools != "auto":
        raise UsageError("--yes goes with --tools auto")
    given = tuple(given_result(value, error) for value, error in args.tool_results)
    if args.no_tools:
        clashing = [
            f for f, on in (("--use-tools", args.use_tools), ("--tools auto", args.yes)) if on
        ]
        if given:
            clashing.append("--tool-result")
        if clashing:
            raise UsageError(f"--no-tools offers no tools; drop {', '.join(clashing)}")
        return ToolSetup()
    use = None
    if args.use_tools is not None:
        use = tuple(name.strip() for name in args.use_tools.split(",") if name.strip())
        if not use:
            raise UsageError("--use-tools needs tool names (A,B); --no-tools offers none")
    servers = tuple(config.mcp.values())
    if servers and not sdk_installed():
        raise UsageError(missing_sdk_message(servers))
    if (given or args.yes) and not (config.tools or servers):
        raise UsageError("no tools are configured: add [tools.NAME] or [mcp.NAME] to the config")
    return ToolSetup(
        local=tuple(config.tools.values()),
        servers=servers,
        use=use,
        run_mcp=args.yes,
        given=given,
        rounds=config.tool_rounds,
        timeout=config.tool_timeout,
    )


def given_result(value: str, is_error: bool) -> GivenResult:
    """`NAME=JSON`: a JSON string is sent as its text, anything else as the JSON written."""
    import json

    from app.headless.ask_tools import GivenResult

    flag = "--tool-error" if is_error else "--tool-result"
    name, equals, written = value.partition("=")
    if not equals or not name.strip():
        raise UsageError(f"{flag} takes NAME=JSON, e.g. {flag} 'get_weather={{\"temp\": 21}}'")
    try:
        parsed = json.loads(written)
    except RecursionError:  # Python's parser recurses per level: 20,000 `[` are too many
        raise UsageError(
            f"{flag} {name.strip()}=…: the value is JSON nested too deeply to read"
        ) from None
    except ValueError:
        raise UsageError(
            f"{flag} {name.strip()}=…: the value is not JSON; write text as a JSON string: "
            f"{name.strip()}='\"your text\"'"
        ) from None
    content = parsed if isinstance(parsed, str) else written.strip()
    return GivenResult(name.strip(), content, is_error)


def _ask_compare(
    args: argparse.Namespace,
    config: Config,
    environ: Mapping[str, str],
    stdin: TextIO,
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    from app.compare import CompareSpecError, parse_compare
    from app.headless.compare import CompareJob, run_compare
    from app.settings.api_keys import MissingApiKey, require_api_key

    clashing = [
        flag
        for flag, given in (
            ("--provider", args.provider is not None),
            ("--model", getattr(args, "model", None) is not None),
            ("--api", args.api is not None),
            ("--base-url", args.base_url is not None),
            ("--api-key-env", args.api_key_env is not None),
            ("--use-tools", args.use_tools is not None),
            ("--no-tools", args.no_tools),
            ("--tools", args.tools != "manual" or args.yes),
            ("--tool-result", bool(args.tool_results)),
        )
        if given
    ]
    if clashing:
        raise UsageError(
            f"--compare names its providers itself (NAME or NAME:MODEL); drop {', '.join(clashing)}"
        )
    try:
        providers = parse_compare(args.compare, config)
        keys = [require_api_key(provider, environ) for provider in providers]
    except (CompareSpecError, MissingApiKey) as exc:
        raise UsageError(str(exc)) from None
    job = CompareJob(
        providers=tuple(providers),
        api_keys=tuple(keys),
        question=_question(args, config, environ, stdin, providers, stderr),
    )
    return run_compare(job, stdout, stderr)


def _question(
    args: argparse.Namespace,
    config: Config,
    environ: Mapping[str, str],
    stdin: TextIO,
    providers: Sequence[ProviderConfig],
    stderr: TextIO,
) -> Question:
    """What `ask` and `ask --compare` take alike from the flags and the config. Parameters
    are checked against every provider's format before the prompt is read."""
    from app.headless.ask import Question

    params = request_params(args.param, providers, stderr)
    attachments = load_attachments(args.attach, providers)
    return Question(
        prompt=read_prompt(args.prompt, stdin),
        params=params,
        attachments=attachments,
        system=system_prompt(args, config),
        json_output=args.json,
        show_reasoning=args.reasoning,
        record=args.record,
        idle_timeout=config.idle_timeout,
        connect_timeout=config.connect_timeout,
        demo_pace=demo_pace(environ),
    )


def request_params(
    assignments: Sequence[str], providers: Sequence[ProviderConfig], stderr: TextIO
) -> RequestParams | None:
    """`--param KEY=VALUE`s as one checked RequestParams (None when none is given), valid for
    every provider's format; a key that is a near miss of a known one is warned about."""
    from app.providers.params import (
        ParamError,
        RequestParams,
        check_for,
        parse_assignment,
        unknown_key_hint,
    )

    if not assignments:
        return None
    params = RequestParams()
    try:
        for assignment in assignments:
            key, value = parse_assignment(assignment)
            hint = unknown_key_hint(key)
            if hint:
                print(f"triptych: warning: --param {key}: sent as it is{hint}", file=stderr)
            params = params.set(key, value)
        for provider in providers:
            try:
                check_for(params, provider.api, provider.max_tokens)
            except ParamError as exc:
                raise ParamError(f"{exc} ({provider.name})") from None
    except ParamError as exc:
        raise UsageError(f"--param {exc}") from None
    return params


def load_attachments(
    paths: Sequence[Path], providers: Sequence[ProviderConfig]
) -> tuple[Attachment, ...]:
    """`--attach PATH`s read and recognised, within every provider's limits (checked before
    the prompt is read, so a prompt piped in is not consumed by a run that cannot send it)."""
    from app.providers.attachments import (
        AttachmentError,
        check_limits,
        load_attachment,
        read_limit,
    )

    if not paths:
        return ()
    limit, whose = read_limit(providers)
    try:
        attachments = tuple(load_attachment(path, limit, whose) for path in paths)
        for provider in providers:
            check_limits(attachments, provider)
    except AttachmentError as exc:
        raise UsageError(f"--attach {exc}") from None
    return attachments


def system_prompt(args: argparse.Namespace, config: Config) -> str | None:
    """`--system TEXT`, else `--system-preset NAME`'s text, else the config's `system`."""
    preset: str | None = args.system_preset
    if preset is not None and args.system is not None:
        raise UsageError("--system and --system-preset both give the system prompt: pick one")
    if preset is not None:
        return config.preset(preset).system
    return args.system if args.system is not None else config.system


def demo_pace(environ: Mapping[str, str]) -> float:
    from app.demo.server import PACE_ENV

    raw = environ.get(PACE_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        pace = float(raw)
    except ValueError:
        pace = -1.0
    if not 0 <= pace <= 100:
        raise UsageError(f"${PACE_ENV} must be a number from 0 to 100, not {raw!r}")
    return pace


def ask_provider(args: argparse.Namespace, config: Config) -> ProviderConfig:
    """`--provider NAME` (or the default), else a provider made of --api/--base-url/--model."""
    from dataclasses import replace

    name: str | None = args.provider
    model: str | None = getattr(args, "model", None)
    custom = args.api is not None or args.base_url is not None
    if custom:
        if name is not None:
            raise UsageError("--provider cannot be combined with --api/--base-url")
        missing = [
            flag
            for flag, value in (
                ("--api", args.api),
                ("--base-url", args.base_url),
                ("--model", model),
            )
            if not value
        ]
        if missing:
            raise UsageError(
                f"--api, --base-url and --model go together; missing {', '.join(missing)}"
            )
        base_url = str(args.base_url).strip().rstrip("/")
        problem = base_url_problem(base_url)
        if problem is not None:
            raise UsageError(f"--base-url: {problem}")
        provider = ProviderConfig(
            name=CUSTOM_PROVIDER, api=Api(args.api), base_url=base_url, model=str(model)
        )
    else:
        provider = config.provider(name)
    if model:
        provider = replace(provider, model=model)
    if args.api_key_env:
        provider = replace(provider, api_key_env=args.api_key_env, api_key=None)
    return provider


def read_prompt(argument: str | None, stdin: TextIO) -> str:
    if argument is not None:
        prompt = argument
    elif stdin.isatty():
        raise UsageError("no prompt: give it as an argument, or pipe it in on stdin")
    else:
        prompt = stdin.read()
    if not prompt.strip():
        raise UsageError("the prompt is empty")
    return prompt


# -- batch -------------------------------------------------------------------------------------


def _batch(
    args: argparse.Namespace,
    config: Config,
    environ: Mapping[str, str],
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    """Check everything (flags, providers, keys, the file, an --out to resume) before anything
    is written; then run. Every problem found here is exit status 2."""
    from app.compare import CompareSpecError, compare_provider
    from app.headless.batch_file import BatchFileError, read_prompts
    from app.headless.batch_results import (
        ResultsFileError,
        RunShape,
        read_results,
        results_format,
        results_lock,
    )
    from app.settings.api_keys import MissingApiKey, require_api_key

    for flag, value in (("--concurrency", args.concurrency), ("--repeat", args.repeat)):
        if value < 1:
            raise UsageError(f"{flag} must be at least 1, not {value}")
    items = [item.strip() for item in args.compare.split(",") if item.strip()]
    if not items:
        raise UsageError("--compare names no provider (NAME or NAME:MODEL, comma-separated)")
    try:
        providers = [compare_provider(item, config) for item in items]
        keys = [require_api_key(provider, environ) for provider in providers]
    except (CompareSpecError, MissingApiKey) as exc:
        raise UsageError(str(exc)) from None
    pairs = [(p.name, p.model) for p in providers]
    twice = sorted({f"{n}:{m}" for n, m in pairs if pairs.count((n, m)) > 1})
    if twice:
        raise UsageError(f"--compare names {', '.join(twice)} twice: each answer needs its own")
    out_format = "jsonl"
    if args.out is not None:
        try:
            out_format = results_format(args.out)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    try:
        prompts = read_prompts(args.file)
    except BatchFileError as exc:
        raise UsageError(str(exc)) from None
    with contextlib.ExitStack() as held:
        try:
            if args.out is not None:  # held until the run ends: two runs on one file ask twice
                held.enter_context(results_lock(args.out))
            shape = RunShape(
                prompts={str(p.id): p.prompt for p in prompts},
                providers=frozenset(pairs),
                repeat=args.repeat,
            )
            kept = None if args.out is None else read_results(args.out, out_format, shape)
        except ResultsFileError as exc:
            raise UsageError(str(exc)) from None
        return _run_batch(args, config, environ, stdout, stderr, prompts, providers, keys, kept)


def _run_batch(
    args: argparse.Namespace,
    config: Config,
    environ: Mapping[str, str],
    stdout: TextIO,
    stderr: TextIO,
    prompts: Sequence[BatchPrompt],
    providers: Sequence[ProviderConfig],
    keys: Sequence[str | None],
    kept: Kept | None,
) -> int:
    from app.headless.batch import BatchJob, run_batch
    from app.headless.batch_results import results_format

    out_format = "jsonl" if args.out is None else results_format(args.out)
    job = BatchJob(
        source=args.file,
        prompts=tuple(prompts),
        providers=tuple(providers),
        api_keys=tuple(keys),
        concurrency=args.concurrency,
        repeat=args.repeat,
        system=args.system if args.system is not None else config.system,
        out=args.out,
        out_format=out_format,
        tag=args.tag,
        idle_timeout=config.idle_timeout,
        connect_timeout=config.connect_timeout,
        demo_pace=demo_pace(environ),
        blind=args.blind,
        **({} if kept is None else {"kept": kept}),
    )
    if args.ui:
        return _batch_ui(config, job)
    store = _open_history(stderr)
    try:
        return run_batch(job, stdout, stderr, store=store, tty=stderr.isatty())
    finally:
        if store is not None:
            store.close()


def _batch_ui(config: Config, job: BatchJob) -> int:
    """`batch … --ui`: the same run in the app, under a live table of its answers."""
    try:
        run_tui: Callable[..., int] = _import_run_tui()
    except ImportError as exc:
        raise UsageError(f"the terminal UI is not available in this build ({exc})") from None
    return run_tui(config, provider=None, model=None, compare=None, continue_last=False, batch=job)


def _open_history(stderr: TextIO) -> Store | None:
    """The history for a command that goes on without it: a problem is said once."""
    from app.store import Store, StoreError, history_path

    try:
        store = Store.open(history_path())
    except StoreError as exc:
        say(stderr, f"warning: {exc.for_command()} The batch runs without history.")
        return None
    for warning in store.warnings:
        say(stderr, f"warning: {warning}")
    return store


# -- history -----------------------------------------------------------------------------------


def _history(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from app.store import format_history

    def show(store: Store) -> int:
        stdout.write(format_history(store, limit=args.limit, query=args.search))
        return 0

    return _with_store(stderr, show)


def _export(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from app.store import ConversationNotFound, export_conversation

    def export(store: Store) -> int:
        try:
            text = export_conversation(
                store, args.id, args.format, raw=args.raw, all_branches=args.all_branches
            )
            stdout.write(text)
        except ConversationNotFound as exc:
            say(stderr, str(exc))
            return NOT_FOUND
        return 0

    return _with_store(stderr, export)


def _leaderboard(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from app.headless.leaderboard import BadDate, parse_since, run_leaderboard

    try:
        since = None if args.since is None else parse_since(args.since)
    except BadDate as exc:
        raise UsageError(str(exc)) from None
    return _with_store(
        stderr,
        lambda store: run_leaderboard(
            store, stdout, json_output=args.json, since=since, tag=args.tag, stderr=stderr
        ),
    )


def _with_store(stderr: TextIO, use: Callable[[Store], int]) -> int:
    """Open the history, run `use` on it, close it. A file that cannot be opened or read (even
    one damaged page, met only when it is read) is a clear message and exit status 2."""
    from app.store import Store, StoreError, history_path

    try:
        store = Store.open(history_path())
    except StoreError as exc:
        say(stderr, exc.for_command())
        return EXIT_USAGE
    try:
        for warning in store.warnings:
            say(stderr, f"warning: {warning}")
        return use(store)
    except StoreError as exc:
        say(stderr, exc.for_command())
        return EXIT_USAGE
    finally:
        store.close()
