"""A hostile MCP server of the tests' own: raw JSON-RPC lines on stdin/stdout, no SDK, so it
can write what no well-made server would.

    python -m tests.fakes.mcp_hostile [--deep-schema N] [--stderr-mib N] [--die-saying-token]
                                      [--weather-once KIND]

It answers `initialize` and `tools/list` properly (unless `--deep-schema N` nests one tool's
schema N levels deep), and `tools/call` by the tool's name:

- `echo`: a proper text result, the `text` argument back (proof the connection still works);
- `garbage`, `null_result`, `batch`, `deep` (100k-deep JSON), `surrogate` (a lone surrogate
  escape), `huge` (a result in one 64 MiB line): the malformed line instead of an answer;
- `wrong_shape`: a JSON-RPC answer whose result is no CallToolResult;
- `get_weather` (the demo's tool): a proper answer, but with `--weather-once KIND` the first
  call is answered as the tool KIND above would be (to watch the chat go on after it);
- `say`: the bytes of its `b64` argument as they are (a fuzzer's lines), then a proper answer
  (which comes too late when those bytes already answered the call).

`--stderr-mib N` writes N MiB to stderr, then its last words — whether its stderr is a file
and how much of it that file holds — and exits before the handshake. `--die-saying-token`
says, from column 187 of its last stderr line, the FAKE_TOKEN of its environment, and exits.
"""

from __future__ import annotations

import base64
import json
import os
import stat
import sys
from typing import Any

HUGE = 64 * 1024 * 1024
WEATHER_CALLS: list[str] = []


def nested_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def tools(deep: int) -> list[dict[str, Any]]:
    names = [
        "echo",
        "garbage",
        "null_result",
        "batch",
        "deep",
        "surrogate",
        "huge",
        "wrong_shape",
        "say",
    ]
    listed: list[dict[str, Any]] = [
        {"name": name, "description": f"Answers {name}", "inputSchema": {"type": "object"}}
        for name in names
    ]
    if deep:
        listed.append({"name": "nested", "inputSchema": nested_schema(deep)})
    listed.append({"name": "get_weather", "inputSchema": {"type": "object"}})
    return listed


def text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def answer(request_id: Any, result: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})


def call_line(request_id: Any, params: dict[str, Any], weather_once: str = "") -> str:
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name == "get_weather":  # the demo's tool: misbehaves as `weather_once` says, once
        if weather_once and not WEATHER_CALLS:
            WEATHER_CALLS.append(name)
            return call_line(request_id, {"name": weather_once})
        return answer(request_id, text_result(f"{arguments.get('city', '?')}: 21 C"))
    if name == "garbage":
        return "this is not JSON at all {"
    if name == "null_result":
        return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": None})
    if name == "batch":
        return "[" + answer(request_id, text_result("in a batch")) + "]"
    if name == "deep":
        return "[" * 100_000 + "]" * 100_000
    if name == "surrogate":
        return answer(request_id, text_result("LONE")).replace("LONE", "\\ud83d")
    if name == "wrong_shape":
        return answer(request_id, {"content": "not a list of blocks"})
    if name == "huge":
        return answer(request_id, text_result("x" * HUGE))
    return answer(request_id, text_result(str(arguments.get("text", ""))))


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def stderr_then_exit(mib: int) -> None:
    block = ("noise " * 174 + "\n").encode()  # about 1 KiB a line
    for _ in range(mib * 1024):
        os.write(2, block)
    info = os.fstat(2)
    kept = info.st_size if stat.S_ISREG(info.st_mode) else 0
    os.write(2, f"hostile server: my stderr file holds {kept} bytes\n".encode())
    sys.exit(5)


def main(argv: list[str]) -> None:
    if "--stderr-mib" in argv:
        stderr_then_exit(int(argv[argv.index("--stderr-mib") + 1]))
    if "--die-saying-token" in argv:
        token = os.environ.get("FAKE_TOKEN", "")
        sys.stderr.write("hostile server: " + "." * 160 + f" the token {token} was refused\n")
        sys.exit(4)
    deep = int(argv[argv.index("--deep-schema") + 1]) if "--deep-schema" in argv else 0
    weather_once = argv[argv.index("--weather-once") + 1] if "--weather-once" in argv else ""
    for raw in iter(sys.stdin.readline, ""):
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if method is None or request_id is None:
            continue  # a notification, or the client's answer to a fuzzer's request
        if method == "tools/call" and (message.get("params") or {}).get("name") == "say":
            arguments = message["params"].get("arguments") or {}
            sys.stdout.buffer.write(base64.b64decode(arguments.get("b64", "")) + b"\n")
            say(answer(request_id, text_result("said")))
            continue
        if method == "initialize":
            version = message["params"]["protocolVersion"]
            say(
                answer(
                    request_id,
                    {
                        "protocolVersion": version,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "hostile", "version": "1"},
                    },
                )
            )
        elif method == "tools/list":
            say(answer(request_id, {"tools": tools(deep)}))
        elif method == "tools/call":
            say(call_line(request_id, message.get("params") or {}, weather_once))
        else:
            say(answer(request_id, {}))


if __name__ == "__main__":
    main(sys.argv[1:])
