"""Where Triptych reads its configuration and writes its data.

Every function reads the environment when it is called (never at import), so tests and users can
point the app somewhere else with `$TRIPTYCH_CONFIG` / `$TRIPTYCH_DATA_DIR` at any time.
The user's config directory is only read; everything the app writes (history, recordings,
state.toml) lives under the data directory, so one variable isolates all of it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "triptych"
CONFIG_ENV = "TRIPTYCH_CONFIG"
DATA_DIR_ENV = "TRIPTYCH_DATA_DIR"
CONFIG_FILE_NAME = "config.toml"
STATE_FILE_NAME = "state.toml"
EXAMPLE_FILE_NAME = "config.example.toml"


@dataclass(frozen=True, slots=True)
class ConfigLocation:
    """The config file to read, and what chose it: a missing file is an error only if asked for."""

    path: Path
    chosen_by: str  # "--config", "$TRIPTYCH_CONFIG" or "default location"

    @property
    def explicit(self) -> bool:
        return self.chosen_by != "default location"


def _env(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def locate_config(
    explicit: Path | None = None, environ: Mapping[str, str] | None = None
) -> ConfigLocation:
    """`--config FILE`, else `$TRIPTYCH_CONFIG`, else config.toml in the user config dir."""
    if explicit is not None:
        return ConfigLocation(Path(explicit).expanduser(), "--config")
    from_env = _env(environ).get(CONFIG_ENV, "")
    if from_env:
        return ConfigLocation(Path(from_env).expanduser(), f"${CONFIG_ENV}")
    return ConfigLocation(config_dir() / CONFIG_FILE_NAME, "default location")


def config_path(explicit: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    return locate_config(explicit, environ).path


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$TRIPTYCH_DATA_DIR`, else the platform's user data dir (history, recordings, state)."""
    from_env = _env(environ).get(DATA_DIR_ENV, "")
    if from_env:
        return Path(from_env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def screenshots_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user's Downloads folder (platformdirs: XDG's, else ~/Downloads), as Textual saves
    there; else the data dir's `screenshots/` (made when first needed): a server or a fresh
    account has no Downloads, and Textual's own save then failed."""
    downloads = platformdirs.user_downloads_path()
    if downloads.is_dir():
        return downloads
    return data_dir(environ) / "screenshots"


def state_path(environ: Mapping[str, str] | None = None) -> Path:
    """state.toml sits in the data dir, apart from config.toml, so the user's file is never
    rewritten and its comments survive."""
    return data_dir(environ) / STATE_FILE_NAME


def user_themes_dir() -> Path:
    return config_dir() / "themes"


def create_config_hint(path: Path) -> str:
    """The one sentence every first-run surface uses (`providers`, `config`, the welcome card)."""
    return f"Create {path} — start from `triptych config --example`"


def example_config() -> str:
    """config.example.toml: `app/` in an installed wheel (pyproject force-include), else the
    checkout's root (editable install), so `triptych config --example` works from both."""
    from importlib import resources  # only here: not on every start

    packaged = resources.files("app") / EXAMPLE_FILE_NAME
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    return (Path(__file__).resolve().parents[2] / EXAMPLE_FILE_NAME).read_text(encoding="utf-8")
