"""Palettes as data: TOML files turned into Textual `Theme`s.

The built-in files live in the repository's `themes/` directory and are shipped inside the wheel
as `app/_themes` (pyproject force-include). User themes come from the config directory's
`themes/` folder; a broken user file is reported and skipped, never fatal.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.theme import Theme

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

DEFAULT_THEME = "triptych-dark"
_COLOURS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_NUMBERS = ("luminosity_spread", "text_alpha")


class ThemeFileError(ValueError):
    """A theme file that cannot be used; the message names the file and the problem."""


@dataclass(slots=True)
class LoadedThemes:
    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def builtin_theme_dir() -> Traversable | Path | None:
    """`app/_themes` in an installed wheel, else the checkout's `themes/` (editable install).
    Folders on disk are looked at first: importlib.resources (and zipfile with it) is loaded
    only for a package that is not one, e.g. zipped (not on every start)."""
    here = Path(__file__).resolve()
    for folder in (here.parents[1] / "_themes", here.parents[2] / "themes"):
        if folder.is_dir():
            return folder
    from importlib import resources

    packaged = resources.files("app") / "_themes"
    return packaged if packaged.is_dir() else None


def theme_from_mapping(data: dict[str, Any], origin: str) -> Theme:
    def fail(problem: str) -> ThemeFileError:
        return ThemeFileError(f"{origin}: {problem}")

    name, primary = data.get("name"), data.get("primary")
    if not isinstance(name, str) or not name:
        raise fail("`name` must be a non-empty string")
    if not isinstance(primary, str):
        raise fail("`primary` must be a colour string")
    known = {"name", "dark", "variables", *_COLOURS, *_NUMBERS}
    unknown = sorted(set(data) - known)
    if unknown:
        raise fail(f"unknown keys: {', '.join(unknown)}")
    kwargs: dict[str, Any] = {"name": name}
    for key in _COLOURS:
        if key in data:
            if not isinstance(data[key], str):
                raise fail(f"`{key}` must be a colour string")
            kwargs[key] = data[key]
    for key in _NUMBERS:
        if key in data:
            if not isinstance(data[key], int | float) or isinstance(data[key], bool):
                raise fail(f"`{key}` must be a number")
            kwargs[key] = float(data[key])
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise fail("`dark` must be true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise fail("[variables] must map names to strings")
    try:
        return Theme(dark=dark, variables=dict(variables), **kwargs)
    except Exception as exc:  # Theme validates colours and raises its own types
        raise fail(str(exc)) from exc


def _read(entry: Traversable | Path) -> Theme:
    try:
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ThemeFileError(f"{entry.name}: {exc}") from exc
    return theme_from_mapping(data, str(entry))


def load_theme_dir(folder: Traversable | Path | None, into: LoadedThemes) -> None:
    if folder is None or not folder.is_dir():
        return
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml") and entry.is_file():
            try:
                into.themes.append(_read(entry))
            except ThemeFileError as exc:
                into.problems.append(f"theme skipped: {exc}")


def load_themes(user_dir: Path | None) -> LoadedThemes:
    """Built-in palettes first, then the user's, which may replace one by using its name."""
    loaded = LoadedThemes()
    load_theme_dir(builtin_theme_dir(), loaded)
    load_theme_dir(user_dir, loaded)
    return loaded


__all__ = ["DEFAULT_THEME", "LoadedThemes", "ThemeFileError", "load_themes", "theme_from_mapping"]
