"""Request parameters as one typed model, and how each wire format spells them. Pure.

Chat Completions, Messages and Responses name and shape the same knobs differently (the seed
documents and the providers' references): `max_tokens` vs `max_output_tokens`, `stop` vs
`stop_sequences`, `reasoning_effort` vs `reasoning.effort` vs `thinking.budget_tokens`. A user
sets each knob once (`ask --param`, later the parameters panel); `format_fields` gives the
body fields for one format, and a knob that format has no field for is an error saying so,
never silently dropped. `extra` is raw JSON merged last, for anything the model does not name.

    | knob              | chat              | messages                          | responses        |
    | temperature       | temperature 0..2  | temperature 0..1                  | temperature 0..2 |
    | top_p             | top_p             | top_p                             | top_p            |
    | max_output_tokens | max_tokens        | max_tokens                        | max_output_tokens|
    | stop              | stop (up to 4)    | stop_sequences                    | -                |
    | seed              | seed              | -                                 | -                |
    | reasoning_effort  | reasoning_effort  | -                                 | reasoning.effort |
    | thinking_budget   | -                 | thinking {enabled, budget_tokens} | -                |
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from app.wire.api import Api

EFFORTS = ("low", "medium", "high")  # what every reasoning API takes; the panel's choices
MORE_EFFORTS = ("none", "minimal", "xhigh", "max")  # taken by some providers (OpenAI, Kimi)
MIN_THINKING_BUDGET = 1024  # Messages refuses a smaller budget
MAX_CHAT_STOPS = 4
MAX_SEED = 2**63 - 1
FORMAT_NAMES = {Api.CHAT: "Chat Completions", Api.MESSAGES: "Messages", Api.RESPONSES: "Responses"}
# What a body holds besides parameters: left out of what is stored as "sent with".
CONVERSATION_FIELDS = frozenset(
    {"model", "messages", "input", "system", "instructions", "stream", "tools"}
)


# Body fields the app fills from the conversation and its own flags: a value given for one as a
# raw parameter would be sent while `--json` and the history say otherwise (another model, an
# empty conversation), so it is refused, naming the way to set it instead.
OWNED_FIELDS = {
    "model": "set the model with --model (NAME:MODEL in --compare; the model picker in the app)",
    "messages": "the conversation is the prompt (the argument or stdin) and --system",
    "input": "the conversation is the prompt (the argument or stdin) and --system",
    "system": "set it with --system",
    "instructions": "set it with --system",
    "stream": "every request streams",
    "tools": "offer tools with --use-tools or --no-tools ([tools.NAME] and [mcp.NAME])",
}


class ParamError(ValueError):
    """A parameter that is of the wrong type, out of range, or not taken by a format."""


@dataclass(frozen=True, slots=True)
class RequestParams:
    """Values set for a conversation or one `ask`; None (or empty) means "not set": the
    provider's `params` and the server's defaults apply. Build with `RequestParams.of`."""

    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    stop: tuple[str, ...] = ()
    seed: int | None = None
    reasoning_effort: str | None = None  # EFFORTS (or MORE_EFFORTS)
    thinking_budget: int | None = None  # tokens; Messages only
    extra: dict[str, Any] = field(default_factory=dict)  # raw JSON, deep-merged last

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> RequestParams:
        """Checked values by knob name or alias (`max_tokens`, `stop_sequences`, `effort`,
        `budget_tokens`); any other key is raw JSON for `extra`. Raises ParamError."""
        params = cls()
        for key, value in values.items():
            params = params.set(key, value)
        return params

    def set(self, key: str, value: Any) -> RequestParams:
        """A copy with one knob set (None clears it), checked; unknown keys go to `extra`."""
        name = ALIASES.get(key, key)
        if name not in KNOBS:
            if value is not None:
                check_raw(key, value)
            extra = dict(self.extra)
            if value is None:
                extra.pop(key, None)
            else:
                extra[key] = value
            return replace(self, extra=extra)
        checked: Any = None if value is None else _CHECKS[name](key, value)
        if name == "stop" and checked is None:
            checked = ()
        changes: dict[str, Any] = {name: checked}
        params = replace(self, **changes)
        if params.reasoning_effort is not None and params.thinking_budget is not None:
            raise ParamError(
                f"{key}: reasoning_effort and thinking_budget both set how much the model "
                "reasons: pick one"
            )
        return params

    @classmethod
    def saved(cls, values: Mapping[str, Any]) -> RequestParams | None:
        """Values saved by `as_dict` (a conversation's, in the history) back, checked; None
        when none are set or they no longer check (an older version's, edited by hand)."""
        extra = values.get("extra")
        try:
            params = cls.of({k: v for k, v in values.items() if k != "extra"})
        except ParamError:
            return None
        if isinstance(extra, dict):
            params = replace(params, extra=dict(extra))
        return None if params.is_empty else params

    @property
    def is_empty(self) -> bool:
        return self == RequestParams()

    def as_dict(self) -> dict[str, Any]:
        """The knobs that are set, by their own names, plus `extra`: for showing and saving."""
        shown: dict[str, Any] = {}
        for name in KNOBS:
            value = getattr(self, name)
            if value is not None and value != ():
                shown[name] = list(value) if name == "stop" else value
        if self.extra:
            shown["extra"] = dict(self.extra)
        return shown


KNOBS = tuple(f.name for f in fields(RequestParams) if f.name != "extra")
ALIASES = {
    "max_tokens": "max_output_tokens",
    "stop_sequences": "stop",
    "effort": "reasoning_effort",
    "budget_tokens": "thinking_budget",
    "reasoning_budget": "thinking_budget",
}


_TAKEN_BY = {
    Api.CHAT: frozenset(KNOBS) - {"thinking_budget"},
    Api.MESSAGES: frozenset(KNOBS) - {"seed", "reasoning_effort"},
    Api.RESPONSES: frozenset(KNOBS) - {"stop", "seed", "thinking_budget"},
}


def knobs_for(api: Api) -> tuple[str, ...]:
    """The knobs `api` has a field for, in KNOBS order: what a parameters panel offers."""
    return tuple(name for name in KNOBS if name in _TAKEN_BY[api])


def check_raw(key: str, value: Any) -> None:
    """Raise ParamError for a raw body field the app owns (OWNED_FIELDS), or a value holding
    NaN or an infinity (Python's JSON reads them, and writes a body that is not JSON)."""
    if key in OWNED_FIELDS:
        raise ParamError(f"{key}: Triptych sets this field itself; {OWNED_FIELDS[key]}")
    pending = [value]
    while pending:  # no recursion: a value may nest as deep as the JSON reader allows
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ParamError(f"{key}: {item!r} is not a number JSON can send; give a finite one")
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)


def unknown_key_hint(key: str) -> str:
    """ "; did you mean temperature?" when an unknown key is a near miss of a knob, else ""."""
    if key in KNOBS or key in ALIASES:
        return ""
    found = difflib.get_close_matches(key, [*KNOBS, *ALIASES], n=1, cutoff=0.75)
    return f"; did you mean {found[0]}?" if found else ""


def parse_assignment(text: str) -> tuple[str, Any]:
    """`KEY=VALUE` from the command line: VALUE is JSON when it parses, else the string."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ParamError(f"{text!r}: expected KEY=VALUE, e.g. temperature=0.2")
    try:
        value: Any = json.loads(raw)
    except (ValueError, RecursionError):
        value = raw
    return key, value


def check_for(params: RequestParams, api: Api, max_tokens: int) -> None:
    """Raise ParamError when `api` has no field for a knob that is set, or a value is out of
    the range that format takes. `max_tokens` is the provider's, for the thinking budget."""
    name = FORMAT_NAMES[api]
    if params.temperature is not None and api is Api.MESSAGES and params.temperature > 1:
        raise ParamError(f"temperature: {name} takes 0 to 1, not {params.temperature:g}")
    if params.stop and api is Api.RESPONSES:
        raise ParamError(f"stop: {name} takes no stop sequences")
    if len(params.stop) > MAX_CHAT_STOPS and api is Api.CHAT:
        raise ParamError(f"stop: {name} takes at most {MAX_CHAT_STOPS} stop sequences")
    if params.seed is not None and api is not Api.CHAT:
        raise ParamError(f"seed: {name} takes no seed")
    if params.reasoning_effort is not None and api is Api.MESSAGES:
        raise ParamError(
            f"reasoning_effort: {name} takes a thinking budget instead "
            f"(thinking_budget=N, at least {MIN_THINKING_BUDGET})"
        )
    if params.thinking_budget is not None:
        if api is not Api.MESSAGES:
            raise ParamError(
                f"thinking_budget: {name} takes a reasoning effort instead "
                f"(reasoning_effort={'|'.join(EFFORTS)})"
            )
        limit = params.max_output_tokens or max_tokens
        if params.thinking_budget >= limit:
            raise ParamError(
                f"thinking_budget: must be less than max_tokens ({limit}); "
                "raise max_tokens or lower the budget"
            )


def fitted_for(
    params: RequestParams, api: Api, max_tokens: int
) -> tuple[RequestParams, list[tuple[str, str]]]:
    """`params` without the knobs `api` does not take (or not with that value), and for each
    one left out its name and `check_for`'s message: what a comparison's pane is sent when
    the same values go to panes of different formats."""
    left_out: list[tuple[str, str]] = []
    while True:
        try:
            check_for(params, api, max_tokens)
        except ParamError as exc:
            knob = str(exc).partition(":")[0]
            if knob not in KNOBS or getattr(params, knob) in (None, ()):
                raise  # not a knob's own problem: nothing to leave out
            left_out.append((knob, str(exc)))
            params = params.set(knob, None)
            continue
        return params, left_out


def format_fields(params: RequestParams, api: Api) -> dict[str, Any]:
    """The body fields for `api`, without `extra` (see `apply`). Assumes `check_for` passed."""
    body: dict[str, Any] = {}
    if params.temperature is not None:
        body["temperature"] = params.temperature
    if params.top_p is not None:
        body["top_p"] = params.top_p
    if params.max_output_tokens is not None:
        key = "max_output_tokens" if api is Api.RESPONSES else "max_tokens"
        body[key] = params.max_output_tokens
    if params.stop:
        body["stop_sequences" if api is Api.MESSAGES else "stop"] = list(params.stop)
    if params.seed is not None:
        body["seed"] = params.seed
    if params.reasoning_effort is not None:
        if api is Api.RESPONSES:
            body["reasoning"] = {"effort": params.reasoning_effort}
        else:
            body["reasoning_effort"] = params.reasoning_effort
    if params.thinking_budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": params.thinking_budget}
    return body


def sent_params(body: Mapping[str, Any]) -> dict[str, Any]:
    """What a built body carried besides the conversation: the parameters as the server got
    them (the provider's `params`, the knobs, `extra`), stored with the answer."""
    return {key: value for key, value in body.items() if key not in CONVERSATION_FIELDS}


# -- checks, one per knob: the checked value, or ParamError naming the key as the user wrote it


def _number(key: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParamError(f"{key}: must be a number from {low:g} to {high:g}, not {_shown(value)}")
    if not math.isfinite(value) or not low <= value <= high:
        raise ParamError(f"{key}: must be from {low:g} to {high:g}, not {value!r}")
    return float(value) if isinstance(value, float) else value


def _whole(key: str, value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParamError(f"{key}: must be a whole number ({what}), not {_shown(value)}")
    if not low <= value <= high:
        raise ParamError(f"{key}: must be from {low} to {high}, not {value}")
    return value


def _temperature(key: str, value: Any) -> float:
    return _number(key, value, 0, 2)


def _top_p(key: str, value: Any) -> float:
    return _number(key, value, 0, 1)


def _max_output_tokens(key: str, value: Any) -> int:
    return _whole(key, value, 1, 10_000_000, "tokens")


def _seed(key: str, value: Any) -> int:
    return _whole(key, value, -MAX_SEED - 1, MAX_SEED, "an integer")


def _thinking_budget(key: str, value: Any) -> int:
    return _whole(key, value, MIN_THINKING_BUDGET, 10_000_000, "tokens")


def _stop(key: str, value: Any) -> tuple[str, ...]:
    items: Iterable[Any] = [value] if isinstance(value, str) else value
    if not isinstance(value, str | list) or not all(
        isinstance(item, str) and item for item in items
    ):
        raise ParamError(
            f"{key}: must be a string or a list of non-empty strings, not {_shown(value)}"
        )
    return tuple(items)


def _effort(key: str, value: Any) -> str:
    if value not in (*EFFORTS, *MORE_EFFORTS):
        also = ", ".join(MORE_EFFORTS)
        raise ParamError(
            f"{key}: must be {', '.join(EFFORTS)} (or, where the provider takes it, {also}), "
            f"not {_shown(value)}"
        )
    return str(value)


_CHECKS: dict[str, Any] = {
    "temperature": _temperature,
    "top_p": _top_p,
    "max_output_tokens": _max_output_tokens,
    "stop": _stop,
    "seed": _seed,
    "reasoning_effort": _effort,
    "thinking_budget": _thinking_budget,
}


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


__all__ = [
    "ALIASES",
    "EFFORTS",
    "FORMAT_NAMES",
    "KNOBS",
    "MIN_THINKING_BUDGET",
    "MORE_EFFORTS",
    "OWNED_FIELDS",
    "ParamError",
    "RequestParams",
    "check_for",
    "check_raw",
    "format_fields",
    "knobs_for",
    "parse_assignment",
    "sent_params",
    "unknown_key_hint",
]
