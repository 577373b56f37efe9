"""Fuzzing the files of `triptych batch`: any prompt file or --out file is read or refused with
one BatchFileError/ResultsFileError (never another exception); lines end where an editor ends
them; and whatever an answer holds, the --out file it is written to resumes."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.headless.batch_file import BatchFileError, read_prompts
from app.headless.batch_results import (
    Kept,
    ResultsFileError,
    ResultsWriter,
    RunShape,
    read_results,
)

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# What str.splitlines breaks at besides LF and CR, and an editor shows inside a line.
ODD_BREAKS = "\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e"
LINE_ENDS = ("\n", "\r\n", "\r")
text_in_a_line = st.text(
    st.one_of(st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"),
              st.sampled_from(ODD_BREAKS)),
    max_size=30,
)  # fmt: skip


@contextmanager
def file_with(name: str, content: bytes) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        yield path


@SETTINGS
@given(content=st.binary(max_size=300), name=st.sampled_from(["p.txt", "p.jsonl", "p"]))
def test_any_bytes_are_prompts_or_one_batch_file_error(content: bytes, name: str) -> None:
    with file_with(name, content) as path:
        try:
            prompts = read_prompts(path)
        except BatchFileError as exc:
            refused = str(exc)
            assert refused.startswith(str(path))
            assert "\n" not in refused
            return
    assert prompts
    assert len({str(p.id) for p in prompts}) == len(prompts)  # resuming needs unique ids
    assert all(p.prompt.strip() for p in prompts)


@SETTINGS
@given(
    lines=st.lists(text_in_a_line, min_size=1, max_size=12),
    ends=st.lists(st.sampled_from(LINE_ENDS), min_size=12, max_size=12),
)
def test_text_prompts_are_the_lines_an_editor_shows(lines: list[str], ends: list[str]) -> None:
    ends = ends[: len(lines)]
    for i in range(len(lines) - 1):
        if ends[i] == "\r" and not lines[i + 1] and ends[i + 1] != "\r":
            ends[i] = "\r\n"  # a CR then an empty line's LF is one CRLF, to an editor too
    content = "".join(line + end for line, end in zip(lines, ends, strict=True))
    expected = [
        (number, line.strip())
        for number, line in enumerate(lines, 1)
        if line.strip() and not line.strip().startswith("#")
    ]
    if not expected or lines[0].strip().startswith("{") or expected[0][1].startswith("{"):
        return  # no prompts, or a first prompt that reads as JSON Lines
    with file_with("p.txt", content.encode()) as path:
        prompts = read_prompts(path)
    assert [(p.id, p.prompt) for p in prompts] == expected
    assert [p.line for p in prompts] == [number for number, _ in expected]


@SETTINGS
@given(texts=st.lists(st.text(st.characters(blacklist_categories=["Cs"]), min_size=1),
                      min_size=1, max_size=6),
       ascii_only=st.booleans())  # fmt: skip
def test_jsonl_prompts_hold_any_text(texts: list[str], ascii_only: bool) -> None:
    texts = [t for t in texts if t.strip()]
    if not texts:
        return
    content = "".join(json.dumps({"prompt": t}, ensure_ascii=ascii_only) + "\n" for t in texts)
    with file_with("p.jsonl", content.encode()) as path:
        prompts = read_prompts(path)
    assert [p.prompt for p in prompts] == texts
    assert [p.id for p in prompts] == list(range(1, len(texts) + 1))


@SETTINGS
@given(content=st.binary(max_size=400), fmt=st.sampled_from(["jsonl", "csv", "md"]))
def test_any_out_file_is_resumed_or_refused_with_one_results_file_error(
    content: bytes, fmt: str
) -> None:
    shape = RunShape(prompts={"1": "hi"}, providers=frozenset({("p", "m")}), repeat=2)
    with file_with(f"r.{fmt}", content) as path:
        try:
            kept = read_results(path, fmt, shape)
        except ResultsFileError as exc:
            refused = str(exc)
            assert "\n" not in refused
            return
    assert kept.keys <= {("1", "p", "m", 1), ("1", "p", "m", 2)}


any_text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)


@SETTINGS
@pytest.mark.parametrize("fmt", ["jsonl", "csv", "md"])
@given(prompt=any_text, answer=any_text, reasoning=any_text, provider=any_text)
def test_whatever_an_answer_holds_its_out_file_resumes(
    fmt: str, prompt: str, answer: str, reasoning: str, provider: str
) -> None:
    prompt, provider = prompt.strip() or "p", provider.strip() or "p"
    document = {
        "provider": provider, "model": "m", "api": "chat", "status": "complete", "text": answer,
        "reasoning": reasoning, "prompt_id": 7, "prompt": prompt, "repeat": 1, "retries": 0,
    }  # fmt: skip
    shape = RunShape(prompts={"7": prompt}, providers=frozenset({(provider, "m")}), repeat=1)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"r.{fmt}"
        writer = ResultsWriter(path, fmt, Kept(frozenset(), ()))
        writer.write(document)
        writer.close()
        written = path.read_bytes()
        kept = read_results(path, fmt, shape)
        assert kept.keys == {("7", provider, "m", 1)}
        ResultsWriter(path, fmt, kept).close()  # resumed: rewritten with what it keeps
        assert path.read_bytes() == written
