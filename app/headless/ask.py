"""`triptych ask`: one prompt, one streamed answer, no UI.

The answer streams to stdout as it arrives (raw text, for pipes); reasoning (with `--reasoning`),
tool calls and a closing summary line go to stderr. Model output is untrusted, so every control
character except newline and tab is made visible before it reaches the terminal. `--json` prints
one object at the end instead, with the exact fields documented in `answer_json`.

Exit status: 0 complete, 1 failed or interrupted, 2 when the request could not be set up (a
base_url httpx cannot use, unreadable SSL_CERT_FILE, a malformed HTTPS_PROXY: the message says
which), 130 stopped by Ctrl+C (the stream is closed cleanly first, and `--json` still prints
its object).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from app.demo.samples import DEMO_LABEL
from app.demo.server import DemoServer, Pacing, is_demo, start_demo_server
from app.display.sanitize import clean, literal, literal_line
from app.display.status_line import cache_share_text
from app.headless.ask_tools import (
    GivenResults,
    ToolSetup,
    call_json,
    end_note,
    loop_error,
    loop_json,
    result_line,
    started_tools,
)
from app.providers.client import ProviderClient, Timing
from app.providers.errors import names_tools
from app.providers.params import RequestParams
from app.providers.record import Recorder
from app.settings.config import ProviderConfig
from app.settings.redaction import param_secrets, provider_secrets, scrub, scrub_cut, unique
from app.tools.approval import ApprovalPolicy
from app.tools.loop import CANCELLED, LoopEnd, LoopHooks, LoopOutcome, Round, ToolLoop
from app.tools.registry import UnknownTool
from app.wire.attachment import Attachment
from app.wire.conversation import Conversation
from app.wire.events import Event, ReasoningDelta, TextDelta
from app.wire.tools import ToolResult
from app.wire.turn import ToolCall, Turn, TurnStatus

EXIT_COMPLETE = 0
EXIT_FAILED = 1
EXIT_STOPPED = 130
EXIT_CONFIG = 2
BAD_CONFIG = "bad_config"  # the code of a turn the client could not even send
EXIT_CODES = {TurnStatus.COMPLETE: EXIT_COMPLETE, TurnStatus.STOPPED: EXIT_STOPPED}


@dataclass(frozen=True, slots=True)
class Question:
    """What `ask` and `ask --compare` take alike from the flags and the config."""

    prompt: str
    system: str | None = None
    json_output: bool = False
    show_reasoning: bool = False
    record: Path | None = None
    idle_timeout: float = 150.0
    connect_timeout: float = 10.0
    demo_pace: float = 1.0  # multiplies the demo's pacing (0: instant)
    params: RequestParams | None = None  # `--param`: over the provider's `params`
    attachments: tuple[Attachment, ...] = ()  # `--attach`, checked against every provider


@dataclass(frozen=True, slots=True)
class AskJob:
    provider: ProviderConfig  # the model to ask is provider.model
    api_key: str | None
    question: Question
    tools: ToolSetup = field(default_factory=ToolSetup)  # none offered: one request, no loop


def run_ask(job: AskJob, stdout: TextIO, stderr: TextIO) -> int:
    """Ask, print, and return the exit status. Starts the demo server when the demo is asked."""
    with ExitStack() as stack:
        (provider,) = serve_demo([job.provider], job.question.demo_pace, stack, stderr)
        record = job.question.record
        recorder = Recorder(record) if record is not None else None
        if recorder is not None:
            stack.callback(recorder.close)
        printer = _Printer(stdout, stderr, job)
        job = replace(job, provider=provider)
        try:
            if job.tools.offered:
                outcome = asyncio.run(_ask_with_tools(job, recorder, printer))
            else:
                outcome = asyncio.run(_ask(job, recorder, printer))
        except UnknownTool as exc:
            stderr.write(f"triptych: {literal_line(str(exc))}\n")  # it names the tools offered
            return EXIT_CONFIG
        printer.finish(outcome)
        if recorder is not None:
            recorder.close()
            report_recording(recorder, stderr)
    turn = outcome.last
    if turn.error is not None and turn.error.code == BAD_CONFIG:
        return EXIT_CONFIG  # the client could not be set up (base_url, certificates, proxy)
    if outcome.end is LoopEnd.STOPPED:
        return EXIT_STOPPED  # Ctrl+C, in a stream or during a tool call
    if turn.status is TurnStatus.COMPLETE and loop_error(outcome, job.tools.rounds) is not None:
        return EXIT_FAILED  # the round limit, or a tool failed and the model never answered
    return EXIT_CODES.get(turn.status, EXIT_FAILED)


async def _ask(job: AskJob, recorder: Recorder | None, printer: _Printer) -> LoopOutcome:
    turn, timing = Turn(), Timing(time.monotonic())
    try:
        await stream_answer(
            job.provider, job.api_key, job.question, turn, timing, recorder, printer.on_event
        )
    except asyncio.CancelledError:
        # Ctrl+C: asyncio.run cancelled us; the client closed the stream and marked it stopped.
        _uncancel()
    return LoopOutcome([Round(turn, timing)], LoopEnd.ANSWERED)


async def _ask_with_tools(job: AskJob, recorder: Recorder | None, printer: _Printer) -> LoopOutcome:
    """The tool loop: MCP servers started for this run, closed at its end."""
    conversation = Conversation(system=job.question.system)
    conversation.add_user(job.question.prompt, job.question.attachments)
    client = _client(job.provider, job.api_key, job.question, recorder)
    loop: ToolLoop | None = None
    try:
        async with started_tools(job.tools, printer.stderr) as (servers, registry):
            printer.offered = registry.names
            loop = ToolLoop(
                client,
                registry,
                servers,
                ApprovalPolicy(run_all=job.tools.run_mcp),
                manual=GivenResults(job.tools.given, registry).take,
                limit=job.tools.rounds,
                hooks=LoopHooks(printer.on_event, printer.on_turn, printer.on_result),
                params=job.question.params,
            )
            return await loop.run(conversation)
    except asyncio.CancelledError:
        _uncancel()  # Ctrl+C: the stream or the call was stopped, the results say so
    finally:
        await client.aclose()
    turns = [m.turn for m in conversation.messages if m.turn is not None]
    rounds = [Round(turn, printer.timings.get(id(turn), Timing(0.0))) for turn in turns]
    for turn in turns:
        turn.end(stopped=True)
    if not rounds:
        rounds = [Round(Turn(status=TurnStatus.STOPPED), Timing(0.0))]
    return LoopOutcome(rounds, LoopEnd.STOPPED)


def _uncancel() -> None:
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


def serve_demo(
    providers: Sequence[ProviderConfig], pace: float, stack: ExitStack, stderr: TextIO
) -> list[ProviderConfig]:
    """The providers to ask: the demo, unless a base_url points it elsewhere, is sent to one
    demo server started for this run (closed with `stack`); stderr says when the demo answers."""
    demo: DemoServer | None = None
    served: list[ProviderConfig] = []
    for provider in providers:
        if is_demo(provider.name) and not provider.base_url.startswith("http"):
            if demo is None:
                demo = stack.enter_context(start_demo_server(Pacing().scaled(pace)))
            provider = replace(provider, base_url=demo.url)
        served.append(provider)
    if any(is_demo(provider.name) for provider in served):
        stderr.write(f"{DEMO_LABEL} (no network, no API key)\n")
        stderr.flush()
    return served


def write_tool_calls(
    calls: Turn | Sequence[ToolCall], stderr: TextIO, secrets: Sequence[str]
) -> None:
    """One line per tool call the model asked for, then (given a turn) one per tool the
    provider ran itself (web search, MCP…), cleaned and scrubbed."""
    for call in calls.tool_calls if isinstance(calls, Turn) else calls:
        line = f"tool call {call.name} {call.id}: {call.arguments}"
        stderr.write(literal(scrub(line, secrets)) + "\n")
    if isinstance(calls, Turn):
        write_server_tools(calls, stderr, secrets)


def write_server_tools(turn: Turn, stderr: TextIO, secrets: Sequence[str]) -> None:
    """One line per tool the provider ran itself (web search, MCP…): never a call to answer."""
    for tool in turn.server_tools:
        where = f" on {tool.server}" if tool.server else ""
        stderr.write(literal(scrub(f"server tool {tool.name}{where} {tool.id}", secrets)) + "\n")


def write_notices(turn: Turn, stderr: TextIO, secrets: Sequence[str]) -> None:
    """What the client did on its own for this answer (a retry without stream_options)."""
    for notice in turn.notices:
        stderr.write(literal(scrub(f"triptych: {notice}", secrets)) + "\n")
    if turn.notices:
        stderr.flush()


def report_recording(recorder: Recorder, stderr: TextIO) -> None:
    """Say, after the answer, that `--record` could not write its file (the answer is kept)."""
    if recorder.problem is not None:
        stderr.write(f"triptych: recording failed: {literal_line(recorder.problem)}\n")
        stderr.flush()


async def stream_answer(
    provider: ProviderConfig,
    api_key: str | None,
    question: Question,
    turn: Turn,
    timing: Timing,
    recorder: Recorder | None,
    on_event: Callable[[Event], None] | None = None,
) -> None:
    """Ask one question of one provider, streaming into `turn`; shared by ask and ask --compare."""
    conversation = Conversation(system=question.system)
    conversation.add_user(question.prompt, question.attachments)
    client = _client(provider, api_key, question, recorder)
    try:
        await client.stream(conversation, turn, timing, on_event, params=question.params)
    finally:
        await client.aclose()


def _client(
    provider: ProviderConfig, api_key: str | None, question: Question, recorder: Recorder | None
) -> ProviderClient:
    return ProviderClient(
        provider,
        api_key,
        idle_timeout=question.idle_timeout,
        connect_timeout=question.connect_timeout,
        recorder=recorder,
    )


class _Printer:
    """Writes the answer as it streams (human mode) and the ending (both modes)."""

    def __init__(self, stdout: TextIO, stderr: TextIO, job: AskJob) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.job = job
        self._text_tail = ""  # the last text piece: does the answer end with a newline?
        self._reasoning_open = False  # reasoning was written to stderr without a final newline
        params = job.question.params
        self.secrets = unique(
            [
                *provider_secrets(job.provider, job.api_key),
                *(param_secrets(params.extra) if params is not None else ()),
            ]
        )
        self.timings: dict[int, Timing] = {}  # each round's timing, by id of its turn
        self.offered: list[str] = []  # the tools the requests carried

    def on_turn(self, turn: Turn, timing: Timing) -> None:
        """A new request of the tool loop: its text starts on a line of its own."""
        self.timings[id(turn)] = timing
        if self.job.question.json_output:
            return
        if self._text_tail and not self._text_tail.endswith("\n"):
            self.stdout.write("\n")
            self.stdout.flush()
        self._text_tail = ""
        self._close_reasoning()

    def on_result(self, call: ToolCall, result: ToolResult) -> None:
        if self.job.question.json_output:
            return
        self._close_reasoning()
        self.stderr.write(
            literal(scrub(f"tool call {call.name} {call.id}: {call.arguments}", self.secrets))
            + "\n"
        )
        self.stderr.write(result_line(call, result, self.secrets) + "\n")
        self.stderr.flush()

    def _close_reasoning(self) -> None:
        if self._reasoning_open:
            self._reasoning_open = False
            self.stderr.write("\n")
            self.stderr.flush()

    def on_event(self, event: Event) -> None:
        if self.job.question.json_output:
            return
        if type(event) is TextDelta:
            if self._reasoning_open:
                self._reasoning_open = False
                self.stderr.write("\n")
                self.stderr.flush()
            self._text_tail = event.text or self._text_tail
            self.stdout.write(clean(event.text))
            self.stdout.flush()
        elif type(event) is ReasoningDelta and self.job.question.show_reasoning:
            self._reasoning_open = not event.text.endswith("\n")
            self.stderr.write(clean(event.text))
            self.stderr.flush()

    def finish(self, outcome: LoopOutcome) -> None:
        # The client already scrubbed the turn and every event; this is the same rule again
        # for anything printed from the job itself (and tool results, which it never saw).
        secrets = self.secrets
        turn, timing = outcome.last, outcome.rounds[-1].timing
        limit = self.job.tools.rounds
        note = end_note(outcome, limit)
        failure = failure_line(turn)
        if failure is not None and not self.job.question.json_output:
            # The failure's own words first: whatever else stderr says is about it.
            self.stderr.write(scrub(clean(failure), secrets) + "\n")
        if len(outcome.rounds) == 1 and self.offered and names_tools(turn.error):
            note = (
                f"the request offered tools ({', '.join(self.offered)}): if the provider "
                "rejected one's schema, leave it out with --use-tools, or use --no-tools"
            )
            if failure is not None and self.job.question.json_output:
                self.stderr.write(scrub(clean(failure), secrets) + "\n")
        if note is not None:
            self.stderr.write(f"triptych: {literal_line(note)}\n")  # it names tools
            self.stderr.flush()
        write_notices(turn, self.stderr, secrets)
        if self.job.question.json_output:
            document = answer_json(self.job.provider, turn, timing)
            if len(outcome.rounds) > 1 or outcome.end is not LoopEnd.ANSWERED:
                document = loop_json(document, outcome, limit, secrets)
            self.stdout.write(scrub(json.dumps(document), secrets) + "\n")
            self.stdout.flush()
            return
        if self._text_tail and not self._text_tail.endswith("\n"):
            self.stdout.write("\n")
            self.stdout.flush()
        if self._reasoning_open:
            self.stderr.write("\n")
        for earlier in outcome.rounds[:-1]:  # their calls were written with their results
            write_server_tools(earlier.turn, self.stderr, secrets)
        unanswered = [
            c for c in turn.tool_calls if c.result is None or c.result.content == CANCELLED
        ]
        write_tool_calls(unanswered, self.stderr, secrets)
        write_server_tools(turn, self.stderr, secrets)
        line = summary_line(self.job.provider, turn, timing, failure=False)
        if len(outcome.rounds) > 1:
            first, _, rest = line.partition("\n")
            line = f"{first} · {len(outcome.rounds)} requests" + (f"\n{rest}" if rest else "")
        error = loop_error(outcome, limit, secrets)
        if error is not None and turn.error is None:
            line += f"\nerror: {error[0]}: {error[1]}"
        self.stderr.write(literal(scrub_cut(line, secrets)))
        self.stderr.write("\n")
        self.stderr.flush()


def answer_json(provider: ProviderConfig, turn: Turn, timing: Timing) -> dict[str, Any]:
    """The `--json` object: these keys, always all present."""
    usage = turn.usage
    return {
        "provider": provider.name,
        "model": provider.model,
        "api": provider.api.value,
        "status": turn.status.value,
        "text": turn.text,
        "reasoning": turn.reasoning,
        "tool_calls": [call_json(call) for call in turn.tool_calls],
        "server_tools": [
            {"id": tool.id, "name": tool.name, "server": tool.server} for tool in turn.server_tools
        ],
        "finish_reason": turn.finish_reason,
        "usage": None
        if usage is None
        else {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cached_tokens": usage.cached_tokens,
        },
        "cache_hit_share": None if usage is None else _share(usage.cache_hit_share),
        "error": None
        if turn.error is None
        else {"code": turn.error.code, "message": turn.error.message},
        "interruption": turn.interruption or None,  # why an interrupted stream ended early
        **_figures(provider, turn),
        "ttft_ms": timing.ttft_ms,
        "duration_ms": timing.duration_ms,
        "params": turn.params,
        "rounds": 1,
    }


def failure_line(turn: Turn) -> str | None:
    """`error: CODE: MESSAGE` for a failed turn."""
    if turn.error is None:
        return None
    code = f"{turn.error.code}: " if turn.error.code else ""
    return f"error: {code}{turn.error.message}"


def _figures(provider: ProviderConfig, turn: Turn) -> dict[str, Any]:
    """`cost` (US dollars) and `context_window` (tokens): the config's, else the [prices]
    extra's catalogue; null when neither knows (never a guess)."""
    from app.providers.prices import figures  # the catalogue loads only when asked for

    found = figures(provider, provider.model, turn.usage)
    return {"cost": found.cost, "context_window": found.context_window}


def summary_line(
    provider: ProviderConfig, turn: Turn, timing: Timing, *, failure: bool = True
) -> str:
    """provider · model · status · usage · times, then why it ended early if it did
    (`failure`: a failure too, unless it was said already)."""
    parts = [provider.name, provider.model, turn.status.value]
    if turn.finish_reason:
        parts.append(f"finish {turn.finish_reason}")
    usage = turn.usage
    if usage is not None:
        cached = ""
        if usage.cached_tokens:
            share = cache_share_text(usage)
            cached = f" ({usage.cached_tokens} cached" + (f", {share} hit)" if share else ")")
        parts.append(f"{_count(usage.input_tokens)} in{cached} / {_count(usage.output_tokens)} out")
    if timing.ttft_ms is not None:
        parts.append(f"first token {timing.ttft_ms} ms")
    if timing.duration_ms is not None:
        parts.append(f"{timing.duration_ms / 1000:.1f} s")
    line = " · ".join(parts)
    said = failure_line(turn)
    if said is not None:
        if failure:
            line += f"\n{said}"
    elif turn.status is TurnStatus.INTERRUPTED:
        line += f"\ninterrupted: {turn.interruption or 'the stream ended before its last event'}"
    elif turn.status is TurnStatus.STOPPED:
        line += "\nstopped: the stream was closed on Ctrl+C"
    return line


def _share(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)


__all__ = [
    "AskJob",
    "Question",
    "answer_json",
    "failure_line",
    "run_ask",
    "serve_demo",
    "summary_line",
    "write_notices",
    "write_tool_calls",
]
