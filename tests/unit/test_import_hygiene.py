"""The pure core never imports the UI toolkits (checked in a fresh interpreter)."""

from __future__ import annotations

import importlib.util
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import app

# Every headless package and module (the same list as the contracts in pyproject.toml).
CORE_PACKAGES = [
    "app.wire",
    "app.providers",
    "app.store",
    "app.compare",
    "app.demo",
    "app.settings",
    "app.headless",
    "app.tools",
]
CORE_MODULES = [
    "app.cli",  # the entry point: it loads the UI only when the TUI is started
    "app.display.sanitize",
    "app.display.status_line",
    "app.display.code_blocks",
    "app.display.fences",
    "app.display.speed",
    "app.display.turn_watch",
]
UI = ("textual", "rich")


def core_modules() -> list[str]:
    """Every module of the pure core that exists today; the list grows as the core does."""
    found = [name for name in CORE_MODULES if importlib.util.find_spec(name) is not None]
    root = Path(app.__file__).parent
    for package in CORE_PACKAGES:
        folder = root / package.split(".", 1)[1]
        if not (folder / "__init__.py").exists():
            continue
        found.append(package)
        found += [f"{package}.{m.name}" for m in pkgutil.iter_modules([str(folder)])]
    return found


def test_the_pure_core_imports_neither_textual_nor_rich() -> None:
    modules = core_modules()
    assert "app.wire.engine" in modules
    assert "app.wire.conversation" in modules
    assert "app.headless.ask" in modules
    assert "app.settings.config" in modules
    script = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {UI!r})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [], f"imported by the core: {result.stdout}"


def test_httpx_leaves_its_command_line_out() -> None:
    """httpx imports its CLI (click, rich, pygments) whenever click is installed, as it is with
    the dev tools (import-linter) and the mcp extra; the app keeps it out (app/__init__.py)."""
    assert importlib.util.find_spec("click") is not None  # else this would prove nothing
    script = (
        "import json, sys\n"
        "import app.providers.client\n"
        "names = {m.split('.')[0] for m in sys.modules}\n"
        "print(json.dumps(sorted(names & {'click', 'rich'})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [], f"loaded with the client: {result.stdout}"
