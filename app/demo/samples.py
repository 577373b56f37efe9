"""The demo's sample answers, and the words in a prompt that pick them.

Put one of these words in a prompt to the `demo` provider (case does not matter):

    think   reasoning streams before the answer      (also: thinking, reason, reasoning)
    tool    the answer is a tool call with streamed JSON arguments   (also: tools, weather)
    long    a long answer, slow enough to press Esc and stop it
    cut     the connection drops mid-stream: the answer ends `interrupted`
    error   the provider reports an error mid-stream: the answer ends `failed`   (also: fail)

Any other prompt gets a complete Markdown answer with a code block, so a first "hello" always
completes. When several words appear, the first of error, cut, tool, think, long wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from app.demo.frames import Answer, ToolUse

DEMO_LABEL = "demo: offline sample"
DEMO_WORDS: dict[str, tuple[str, ...]] = {
    "think": ("think", "thinking", "reason", "reasoning"),
    "tool": ("tool", "tools", "weather"),
    "long": ("long",),
    "cut": ("cut",),
    "error": ("error", "fail"),
}
_PRIORITY = ("error", "cut", "tool", "think", "long")

_NOTE = f"_{DEMO_LABEL} — no model was called._\n\n"

_HELLO = (
    _NOTE
    + """## Hello from Triptych

This answer was streamed as **real server-sent events** by a small server inside the app, \
through the same HTTP client and decoder that talk to real providers.

Put one of these words in your next prompt to see the other parts of the app:

| word | what streams back |
| --- | --- |
| `think` | reasoning first, then the answer |
| `tool` | a tool call with JSON arguments |
| `long` | a long answer: press Esc to stop it |
| `cut` | a connection that drops mid-answer |
| `error` | a provider error in the middle of the stream |

Code blocks are highlighted as they stream:

```python
def fibonacci(n: int) -> list[int]:
    numbers = [0, 1]
    while len(numbers) < n:
        numbers.append(numbers[-1] + numbers[-2])
    return numbers[:n]
```

Add a real provider to your config file, and `triptych providers` shows what is set up.
"""
)

_THINKING = (
    "The user wants to see reasoning. I should think briefly, out loud, before answering: "
    "first restate the question, then check one fact, then answer in two short paragraphs. "
    "Sixty seconds is a minute; a minute has sixty seconds; so an hour has 3,600 seconds."
)

_THOUGHTFUL = (
    _NOTE
    + """The reasoning above streamed **before** this answer, the way reasoning models send it.

An hour has **3,600 seconds**: 60 minutes × 60 seconds.

Providers send reasoning in their own fields — `reasoning_content` in Chat Completions, \
`thinking` blocks in Messages, reasoning summaries in Responses — and Triptych shows all three \
the same way.
"""
)

_TOOL_INTRO = _NOTE + "I'll look up the weather for you."
_TOOL = ToolUse(
    "get_weather",
    ('{"city"', ': "Par', 'is", ', '"unit": ', '"celsius"}'),
    id="call_demo_weather",
)

_CUT = (
    _NOTE
    + """This answer will not finish. A few sentences in, the demo server drops the \
connection in the middle of an event, the way a flaky network or an overloaded gateway does. \
Triptych keeps every word that arrived and marks the answer as interrupted, so you can tell \
it apart from one that ended on its own. The provider never sent its last event, so"""
)

_ERROR = (
    _NOTE
    + """This answer starts normally, and then the provider reports an error inside the \
stream, after the HTTP status was already 200. The text that arrived stays on screen, and \
the answer is marked failed with the provider's own message."""
)

_LONG_SECTION = """### Part {n}

Streaming keeps a long answer readable while it is still being written. Each piece arrives \
as a server-sent event, is decoded into a text delta and is appended to the answer on the \
next tick of the render clock, so the screen stays responsive however fast tokens come.

- press **Esc** to stop this answer: the connection closes at once
- everything that arrived so far is kept, and the answer is marked *stopped*

"""


def _long_answer() -> str:
    return _NOTE + "".join(_LONG_SECTION.format(n=n) for n in range(1, 13))


def pieces(text: str) -> tuple[str, ...]:
    """Split text into token-sized pieces: one word with its leading whitespace each."""
    return tuple(re.findall(r"\s*\S+|\s+$", text))


@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    answer: Answer
    cut_from_end: int | None = None  # drop the connection halfway through this frame from the end


def choose_word(prompt: str) -> str | None:
    words = set(re.findall(r"[a-z]+", prompt.lower()))
    for name in _PRIORITY:
        if words.intersection(DEMO_WORDS[name]):
            return name
    return None


def sample_for(prompt: str, *, model: str = "demo", input_tokens: int = 12) -> Sample:
    """The sample answer a prompt asks for (see the module docstring for the words)."""
    name = choose_word(prompt) or "hello"
    base = Answer(model=model, input_tokens=input_tokens)
    if name == "think":
        return Sample(name, replace(base, text=pieces(_THOUGHTFUL), reasoning=pieces(_THINKING)))
    if name == "tool":
        return Sample(name, replace(base, text=pieces(_TOOL_INTRO), tool=_TOOL))
    if name == "long":
        return Sample(name, replace(base, text=pieces(_long_answer())))
    if name == "cut":
        return Sample(name, replace(base, text=pieces(_CUT)), cut_from_end=8)
    if name == "error":
        text = pieces(_ERROR)
        return Sample(name, replace(base, text=text, error_after=len(text) - 12))
    return Sample("hello", replace(base, text=pieces(_HELLO), cached_tokens=input_tokens // 2))


__all__ = ["DEMO_LABEL", "DEMO_WORDS", "Sample", "choose_word", "pieces", "sample_for"]
