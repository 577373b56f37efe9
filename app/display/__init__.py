"""Helpers the UI uses to show a turn: sanitising, fence tracking, speed figures, Markdown.

Nothing here imports textual. Two modules import Rich (and markdown-it): `markdown_render`
paints Markdown with Rich, and `markdown_height` mirrors Rich's layout rules (it uses Rich's
private `rich._ratio`, so Rich is pinned to one major version). The rest imports neither, so
`triptych ask`, `ask --compare`, the store and unit tests use it headless.
"""
