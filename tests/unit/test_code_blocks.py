"""Copying a code block copies exactly what the fence holds."""

from __future__ import annotations

from app.demo.samples import sample_for
from app.display.code_blocks import CodeBlock, code_blocks

PYTHON = (
    "def fibonacci(n: int) -> list[int]:\n"
    "    numbers = [0, 1]\n"
    "    while len(numbers) < n:\n"
    "        numbers.append(numbers[-1] + numbers[-2])\n"
    "\n"
    "\treturn numbers[:n]  # a tab stays a tab\n"
    "    ```\n"  # indented four spaces: code, not the closing fence
)


def test_a_fence_at_the_margin_keeps_every_line_as_written() -> None:
    text = f"Here:\n\n```python\n{PYTHON}```\n\nDone.\n"
    assert code_blocks(text) == [CodeBlock("python", PYTHON.rstrip("\n"))]


def test_the_demo_answer_code_is_copied_with_its_indentation() -> None:
    answer = "".join(sample_for("hello").answer.text)
    [block] = code_blocks(answer)
    assert block.code.splitlines()[1] == "    numbers = [0, 1]"
    assert block.code in answer  # byte for byte what the answer holds


def test_an_indented_fence_loses_only_its_own_indentation() -> None:
    # CommonMark: up to N spaces are removed from each line when the fence is indented N.
    text = "1. step\n\n   ```sh\n   if true; then\n       echo yes\n  fi\n   ```\n"
    assert code_blocks(text) == [CodeBlock("sh", "if true; then\n    echo yes\nfi")]


def test_an_unterminated_fence_at_the_margin_keeps_its_indentation() -> None:
    text = "```python\nif x:\n    y = 1\n"
    assert code_blocks(text) == [CodeBlock("python", "if x:\n    y = 1")]
