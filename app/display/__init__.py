"""Pure helpers the UI uses to show a turn: sanitising, fence tracking, speed figures.

Nothing here imports textual or rich, so `triptych ask` and unit tests can use it headless.
"""
