"""Each app/wire module's `__all__` names exist: the public surface others build on is real."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import app.wire

MODULES = ["app.wire"] + [f"app.wire.{m.name}" for m in pkgutil.iter_modules(app.wire.__path__)]
PUBLIC = [m for m in MODULES if not m.rsplit(".", 1)[1].startswith("_")]


@pytest.mark.parametrize("name", PUBLIC)
def test_all_names_exist(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} has no __all__"
    assert len(set(exported)) == len(exported), f"{name}: duplicate names"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it lacks: {missing}"


def test_the_package_exposes_what_others_build_on() -> None:
    for name in ("Api", "StreamEngine", "Turn", "TurnStatus", "ToolCall", "decode_bytes", "Event"):
        assert name in app.wire.__all__
    assert {"engine", "events", "sse", "turn", "chat", "messages", "responses"} <= {
        m.rsplit(".", 1)[1] for m in PUBLIC
    }
