"""The parameters panel (F3, palette "Parameters…"): the chat's request parameters as a form.

Only the knobs the chat provider's format has a field for are offered (`knobs_for`), with the
range that format takes; a raw JSON object for anything else is merged last. Each field is
read as `ask --param` reads its VALUE (JSON when it parses, else a string) and checked by
`RequestParams` and `check_for`, so the panel and the command line give the same messages.
A bad value keeps the panel open with the message under the form and the field marked; nothing
typed is lost. Apply returns the new RequestParams (empty: cleared), Esc returns None.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from app.display.sanitize import clean_line
from app.display.sent_with import sent_summary
from app.providers.params import (
    EFFORTS,
    FORMAT_NAMES,
    KNOBS,
    MAX_CHAT_STOPS,
    MIN_THINKING_BUDGET,
    ParamError,
    RequestParams,
    check_for,
    check_raw,
    format_fields,
    knobs_for,
)
from app.settings.config import ProviderConfig
from app.ui.widgets.chat_pane import ChatPane
from app.wire.api import Api

RAW = "extra"  # the raw JSON field's id, as RequestParams names it
LABELS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_output_tokens": "max output tokens",
    "stop": "stop sequences",
    "seed": "seed",
    "reasoning_effort": "reasoning effort",
    "thinking_budget": "thinking budget",
}


def hints(api: Api | None) -> dict[str, str]:
    """What each field takes on this format (None: on every format), beside it."""
    if api is None:
        return {
            "temperature": "0 to 2 (Messages 0 to 1)",
            "top_p": "0 to 1",
            "max_output_tokens": "tokens",
            "stop": 'END or ["END", "###"]',
            "seed": "integer (Chat Completions)",
            "reasoning_effort": "(not Messages)",
            "thinking_budget": f"tokens, ≥{MIN_THINKING_BUDGET} (Messages)",
        }
    return {
        "temperature": "0 to 1" if api is Api.MESSAGES else "0 to 2",
        "top_p": "0 to 1",
        "max_output_tokens": "tokens",
        "stop": f'END or ["END", "###"], ≤{MAX_CHAT_STOPS}'
        if api is Api.CHAT
        else 'END or ["END", "###"]',
        "seed": "an integer",
        "reasoning_effort": "",
        "thinking_budget": f"tokens, at least {MIN_THINKING_BUDGET}",
    }


def field_value(text: str) -> Any:
    """A field as `--param` reads its VALUE: JSON when it parses, else the text; empty: None."""
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def field_text(value: Any) -> str:
    """A set value as its field shows it (a string as itself, unless it would read as JSON)."""
    if value is None or value == ():
        return ""
    if isinstance(value, str) and field_value(value) == value:
        return value
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value, ensure_ascii=False)


def raw_object(text: str) -> dict[str, Any]:
    """The raw JSON field: an object, or ParamError saying what is wrong with it."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParamError(
            f"raw JSON: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:
        raise ParamError("raw JSON: nested too deeply") from None
    if not isinstance(value, dict):
        raise ParamError('raw JSON: must be an object, e.g. {"logprobs": true}')
    for key, item in value.items():
        try:
            check_raw(key, item)
        except ParamError as exc:
            raise ParamError(f"raw JSON: {exc}") from None
    return value


def read_form(
    values: Mapping[str, Any], raw: str, api: Api | None, max_tokens: int
) -> RequestParams:
    """The form's values as checked RequestParams (for `api`'s own ranges; None: only what
    every format checks). Raises ParamError; its `args[1]` is the id of the field it is about
    (None when it is about none in particular)."""
    params = RequestParams()
    for name, value in values.items():
        try:
            params = params.set(name, value)
        except ParamError as exc:
            raise ParamError(str(exc), name) from None
    try:
        params = replace(params, extra=raw_object(raw))
    except ParamError as exc:
        raise ParamError(str(exc), RAW) from None
    if api is None:
        return params
    try:
        check_for(params, api, max_tokens)
    except ParamError as exc:
        field = str(exc).partition(":")[0]
        raise ParamError(str(exc), field if field in KNOBS else None) from None
    return params


def params_summary(params: RequestParams | None, api: Api) -> str:
    """The values as the header of an answer sent with them would show them."""
    if params is None:
        return ""
    return sent_summary({**format_fields(params, api), **params.extra})


class ParametersScreen(ModalScreen[RequestParams | None]):
    """Enter or Apply sets the values for the chat's next requests; Clear empties the form;
    Esc closes the panel unchanged."""

    DEFAULT_CSS = """
    ParametersScreen {
        align: center middle;
        background: $background 60%;
        & > Vertical {
            width: 78;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            padding: 0 2;
            border: thick $primary 80%;
            background: $surface;
        }
        .params--title { text-style: bold; }
        .params--note { color: $text-muted; }
        VerticalScroll { height: auto; max-height: 12; margin: 1 0 0 0; }
        .params--row { height: 1; }
        .params--name { width: 18; }
        .params--row Input { width: 24; }
        .params--row Select { width: 24; }
        .params--hint { width: 1fr; padding: 0 0 0 2; color: $text-muted; }
        #extra { height: 3; }
        Input.-invalid { background: $error 40%; }
        #extra.-invalid { background: $error 30%; }
        #params-error { color: $text-error; height: auto; display: none; }
        #params-error.-shown { display: block; }
        .params--buttons { height: 1; margin: 1 0 0 0; }
        .params--keys { width: 1fr; color: $text-muted; }
        Button { margin: 0 0 0 2; width: auto; min-width: 9; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel"),
        Binding("ctrl+s", "apply", "apply", tooltip="set the values for the next requests"),
    ]

    def __init__(
        self,
        provider: ProviderConfig | None,
        current: RequestParams | None,
        *,
        title: str = "",
        note: str = "",
    ) -> None:
        """`provider`: the chat's, whose format's knobs and ranges the form offers; None: a
        comparison's, every knob, each pane keeping those its format takes (`title` and
        `note` then say so, naming no provider)."""
        super().__init__()
        self.provider = provider
        self.current = current if current is not None else RequestParams()
        self.api = None if provider is None else provider.api
        self.knobs = KNOBS if self.api is None else knobs_for(self.api)
        self.max_tokens = 0 if provider is None else provider.max_tokens
        if provider is not None:
            name = clean_line(provider.name)
            title = (
                f"Parameters · this chat's next requests to {name} ({FORMAT_NAMES[provider.api]})"
            )
            configured = sent_summary(provider.params)
            note = (
                f"Over the provider's params: {configured}"
                if configured
                else "Over the provider's params (it has none)"
            )
        self.title_text, self.note_text = title, note

    def compose(self) -> ComposeResult:
        shown = hints(self.api)
        set_now = self.current.as_dict()
        with Vertical():
            yield Label(Content(self.title_text), classes="params--title")
            yield Static(Content(self.note_text), classes="params--note")
            with VerticalScroll():
                for knob in self.knobs:
                    with Horizontal(classes="params--row"):
                        yield Label(LABELS[knob], classes="params--name")
                        if knob == "reasoning_effort":
                            yield Select(
                                [(effort, effort) for effort in EFFORTS],
                                prompt="not set",
                                value=set_now.get(knob, Select.NULL),
                                id=knob,
                                compact=True,
                            )
                        else:
                            yield Input(field_text(set_now.get(knob)), id=knob, compact=True)
                        yield Label(shown[knob], classes="params--hint", markup=False)
                yield Label("raw JSON, merged last (anything else the API takes)")
                extra = self.current.extra
                text = json.dumps(extra, ensure_ascii=False) if extra else ""
                yield TextArea(text, id=RAW, show_line_numbers=False, tab_behavior="focus")
            yield Static("", id="params-error", markup=False)
            with Horizontal(classes="params--buttons"):
                yield Label("Enter or ctrl+s applies · Esc cancels", classes="params--keys")
                yield Button("Apply", variant="primary", id="params-apply", compact=True)
                yield Button("Clear", id="params-clear", compact=True)
                yield Button("Cancel", id="params-cancel", compact=True)

    def on_mount(self) -> None:
        self.query(Input).first().focus()

    def form_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name in self.knobs:
            if name == "reasoning_effort":
                select = self.query_one(f"#{name}", Select)
                values[name] = None if select.is_blank() else select.value
            else:
                values[name] = field_value(self.query_one(f"#{name}", Input).value)
        return values

    def check(self) -> RequestParams | None:
        """The form's values, or None with the message shown and the field marked."""
        for widget in self.query(".-invalid"):
            widget.remove_class("-invalid")
        error = self.query_one("#params-error", Static)
        raw = self.query_one(f"#{RAW}", TextArea).text
        try:
            params = read_form(self.form_values(), raw, self.api, self.max_tokens)
        except ParamError as exc:
            field = exc.args[1] if len(exc.args) > 1 else None
            error.update(Content(clean_line(str(exc.args[0]))))
            error.add_class("-shown")
            if field is not None:
                widget = self.query_one(f"#{field}")
                widget.add_class("-invalid")
                widget.focus()
            return None
        error.update("")
        error.remove_class("-shown")
        return params

    @property
    def error_text(self) -> str:
        return str(self.query_one("#params-error", Static).content)

    def action_apply(self) -> None:
        params = self.check()
        if params is not None:
            self.dismiss(params)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_apply()

    @on(Button.Pressed, "#params-apply")
    def _apply(self) -> None:
        self.action_apply()

    @on(Button.Pressed, "#params-cancel")
    def _cancel(self) -> None:
        self.action_cancel()

    @on(Button.Pressed, "#params-clear")
    def _clear(self) -> None:
        for field in self.query(Input):
            field.value = ""
        for select in self.query(Select):
            select.clear()
        self.query_one(f"#{RAW}", TextArea).clear()
        self.check()


def edit_parameters(app: App[Any], pane: ChatPane) -> None:
    """Open the panel on the pane's values; Apply sets them for its next requests."""

    def done(params: RequestParams | None) -> None:
        if params is None:
            return
        pane.set_params(params)
        summary = params_summary(pane.params, pane.provider.api)
        app.notify(
            f"Parameters for the next requests: {summary}"
            if summary
            else "Parameters cleared: the provider's own params apply.",
            markup=False,
        )

    app.push_screen(ParametersScreen(pane.provider, pane.params), done)


__all__ = [
    "ParametersScreen",
    "edit_parameters",
    "field_text",
    "field_value",
    "params_summary",
    "raw_object",
    "read_form",
]
