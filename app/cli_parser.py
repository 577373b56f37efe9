"""The command line's grammar: `triptych`'s flags and subcommands, as argparse reads them.

Its own module so that plain `triptych` never builds it, nor imports argparse and gettext:
app/cli.py stands in with `no_arguments()` (the first frame).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from app import __version__
from app.settings.config import API_NAMES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="triptych",
        description="A terminal chat app that shows exactly what an LLM provider streams back.",
    )
    parser.add_argument("--version", action="version", version=f"triptych {__version__}")
    parser.add_argument("--config", type=Path, metavar="FILE", help="the config file to read")
    parser.add_argument("--provider", metavar="NAME", help="the provider to start with")
    parser.add_argument("--model", metavar="M", help="the model to start with")
    parser.add_argument(
        "--continue",
        dest="continue_last",
        action="store_true",
        help="reopen the last conversation",
    )
    parser.add_argument(
        "--compare", metavar="A,B", help="providers to ask side by side, comma-separated"
    )
    parser.add_argument(
        "--blind",
        action="store_true",
        help="with --compare: panes called A, B, … in a shuffled order until you vote",
    )
    parser.add_argument(
        "--system-preset", metavar="NAME", help="start with the system prompt [prompts.NAME]"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _ask_parser(commands)
    providers = commands.add_parser(
        "providers", help="list the providers found (config, environment, this machine) and keys"
    )
    providers.add_argument("--json", action="store_true", help="print one JSON list")
    providers.add_argument(
        "--catalogue",
        action="store_true",
        help="print the built-in providers as config TOML to copy and edit",
    )
    _config_flag(providers)
    tools = commands.add_parser(
        "tools", help="list the tools offered to the model ([tools] and MCP servers' tools)"
    )
    tools.add_argument("--json", action="store_true", help="print one JSON list")
    _config_flag(tools)
    config = commands.add_parser(
        "config", help="say which config file is read; --example prints one to start from"
    )
    config.add_argument(
        "--example", action="store_true", help="print an example config with ready presets"
    )
    _config_flag(config)
    history = commands.add_parser("history", help="list saved conversations, newest first")
    history.add_argument("--search", metavar="TEXT", help="only conversations containing TEXT")
    history.add_argument("--limit", type=int, default=100, metavar="N")
    export = commands.add_parser("export", help="print one saved conversation")
    export.add_argument("id", type=int, metavar="ID")
    export.add_argument("--format", choices=("md", "json"), default="md")
    export.add_argument(
        "--raw", action="store_true", help="add each answer's kept raw stream (a recording)"
    )
    export.add_argument(
        "--all-branches",
        action="store_true",
        help="every branch of the chat, indented (default: the branch shown)",
    )
    serve = commands.add_parser(
        "serve",
        help="serve the app to a browser (textual-serve: pip install 'triptych[serve]')",
        description=(
            "Serve the app to a web browser with textual-serve; each tab runs its own triptych. "
            "It prints the URL to open, which holds a new token at each start: requests without "
            "it, from another site's page, or to a name other than localhost or --public-url's "
            "are refused. It listens on 127.0.0.1 unless --host says otherwise."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="the port to listen on")
    serve.add_argument(
        "--public-url", metavar="URL", help="the URL browsers reach it by (behind a proxy)"
    )
    serve.add_argument(
        "--token", metavar="T", help="the token to require (default: a new random one each start)"
    )
    _config_flag(serve)
    replay = commands.add_parser(
        "replay",
        help="decode a recording (`ask --record`), a raw SSE body (curl -N) or a HAR file",
    )
    replay.add_argument("file", type=Path, metavar="FILE")
    replay.add_argument(
        "--api", choices=API_NAMES, help="the capture's format (else told from its frames)"
    )
    replay.add_argument(
        "--entry",
        type=_entry,
        metavar="N",
        help="a HAR file's Nth streamed response (listed when there are several)",
    )
    replay.add_argument("--json", action="store_true", help="print the `ask --json` object")
    replay.add_argument(
        "--ui", action="store_true", help="stream it into the app again, with the inspector open"
    )
    replay.add_argument(
        "--speed",
        metavar="X",
        default="1",
        help="with --ui: X times the recorded pace, or max (default 1)",
    )
    _batch_parser(commands)
    board = commands.add_parser(
        "leaderboard", help="ratings of provider:model from blind votes (Bradley–Terry)"
    )
    board.add_argument("--json", action="store_true", help="print a JSON list of rows")
    board.add_argument("--since", metavar="DATE", help="only votes from DATE on (YYYY-MM-DD)")
    board.add_argument("--tag", metavar="TAG", help="only votes of batches run with --tag TAG")
    return parser


def _batch_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    batch = commands.add_parser(
        "batch",
        help="ask every prompt of a file of every provider; a table at the end",
        description=(
            "Ask every prompt of FILE (one per line, or JSON Lines with id, prompt, system) of "
            "every provider, K times, a few at once; progress on stderr, a table on stdout."
        ),
    )
    batch.add_argument("file", type=Path, metavar="FILE", help="the prompts (text or JSONL)")
    batch.add_argument(
        "--compare",
        metavar="A,B",
        required=True,
        help="the providers (NAME or NAME:MODEL, comma-separated)",
    )
    batch.add_argument("--concurrency", type=int, default=4, metavar="N",
                       help="requests in flight at most (default 4)")  # fmt: skip
    batch.add_argument("--repeat", type=int, default=1, metavar="K",
                       help="ask each prompt K times (default 1)")  # fmt: skip
    batch.add_argument("--system", metavar="TEXT", help="the system prompt")
    batch.add_argument("--out", type=Path, metavar="PATH", help="results: .jsonl, .csv or .md")
    batch.add_argument("--tag", metavar="TAG", help="a name for this run (leaderboard --tag)")
    batch.add_argument(
        "--blind", action="store_true", help="each prompt is voted on with the names hidden"
    )
    batch.add_argument(
        "--ui", action="store_true", help="in the app: a live table; Enter opens a prompt"
    )
    _config_flag(batch)


def _entry(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a number from 1, not {text!r}")
    return value


def _config_flag(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's --config must not erase one given before the subcommand.
    parser.add_argument("--config", type=Path, metavar="FILE", default=argparse.SUPPRESS)


def _ask_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ask = commands.add_parser(
        "ask",
        help="ask one question and stream the answer to stdout",
        description=(
            "Ask one question; the answer streams to stdout. Without a config this asks the "
            "offline demo, whose answers depend on words in the prompt: think, tool, long, "
            "cut, error."
        ),
    )
    ask.add_argument("prompt", nargs="?", metavar="PROMPT", help="the question (else stdin)")
    ask.add_argument("--provider", metavar="NAME", default=argparse.SUPPRESS)
    ask.add_argument(
        "--compare",
        metavar="A,B",
        default=argparse.SUPPRESS,
        help="ask 2 to 4 providers at once (NAME or NAME:MODEL, comma-separated)",
    )
    ask.add_argument("--api", choices=API_NAMES, help="with --base-url and --model: no config")
    ask.add_argument("--base-url", metavar="URL")
    ask.add_argument("--model", metavar="M", default=argparse.SUPPRESS)
    ask.add_argument("--api-key-env", metavar="VAR", help="the variable that holds the key")
    ask.add_argument("--system", metavar="TEXT", help="the system prompt")
    ask.add_argument(
        "--system-preset",
        metavar="NAME",
        default=argparse.SUPPRESS,  # may also come before `ask`
        help="the system prompt named [prompts.NAME] in the config",
    )
    ask.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a request parameter (temperature, top_p, max_tokens, stop, seed, "
        "reasoning_effort, thinking_budget, or any body field); VALUE is JSON when it parses",
    )
    ask.add_argument(
        "--attach",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="attach a file: an image (PNG, JPEG, WebP, GIF), a PDF or a text file",
    )
    ask.add_argument("--reasoning", action="store_true", help="show reasoning on stderr")
    ask.add_argument("--json", action="store_true", help="print one JSON object at the end")
    ask.add_argument("--record", type=Path, metavar="FILE", help="record the exchange (JSONL)")
    tools = ask.add_argument_group("tools ([tools.NAME] and [mcp.NAME] in the config)")
    tools.add_argument("--use-tools", metavar="A,B", help="offer only these tools (or servers)")
    tools.add_argument("--no-tools", action="store_true", help="offer no tools")
    tools.add_argument(
        "--tools",
        choices=("manual", "auto"),
        default="manual",
        help="auto: run MCP tools without asking (needs --yes); manual: only --tool-result",
    )
    tools.add_argument("--yes", action="store_true", help="with --tools auto: yes, run them")
    for flag, meaning in (("--tool-result", "the result"), ("--tool-error", "an error result")):
        tools.add_argument(
            flag,
            action="append",
            dest="tool_results",
            default=[],
            type=_tagged(flag == "--tool-error"),
            metavar="NAME=JSON",
            help=f"answer a call of NAME with {meaning} (repeatable; in order, the last repeats)",
        )
    _config_flag(ask)


def _tagged(is_error: bool) -> Callable[[str], tuple[str, bool]]:
    """--tool-result and --tool-error share one list, in command-line order."""
    return lambda value: (value, is_error)


__all__ = ["build_parser"]
