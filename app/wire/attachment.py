"""A file attached to a prompt, as the conversation keeps it: its name, its kind, its bytes.

Independent of any wire format (each request builder shapes it its own way) and of where it
came from (a path read by `app.providers.attachments.load_attachment`, or a history row: the
store keeps each content once, by its SHA-256).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["image", "text", "pdf"]
KINDS: tuple[Kind, ...] = ("image", "text", "pdf")


@dataclass(frozen=True, slots=True)
class Attachment:
    name: str  # the file's own name, without its folder: what the model and the user see
    media_type: str  # image/png, image/jpeg, image/webp, image/gif, application/pdf, text/...
    kind: Kind
    data: bytes = field(repr=False)
    sha256: str = field(default="", compare=False)  # filled from `data` when not given

    def __post_init__(self) -> None:
        if not self.sha256:
            import hashlib  # OpenSSL: loaded with the first attachment, not at start-up

            object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    @property
    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64}"

    @property
    def text(self) -> str:
        """A text file's content (checked UTF-8 when it was loaded)."""
        return self.data.decode("utf-8", "replace")

    def as_text_part(self) -> str:
        """A text file as the model reads it: its content inside a tag naming the file."""
        name = self.name.replace('"', "'")
        body = self.text if self.text.endswith("\n") else self.text + "\n"
        return f'<file name="{name}">\n{body}</file>'


__all__ = ["KINDS", "Attachment", "Kind"]
