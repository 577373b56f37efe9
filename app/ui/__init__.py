"""The terminal UI, in floors whose imports only point down (an import-linter contract in
pyproject.toml checks it, counting imports inside functions and under TYPE_CHECKING):

- `app` (app.py): the Textual app. It handles what the screens ask for (their messages) in one
  `on_…` method each, by calling a flow with itself as the flows' `ChatHost`. Beside it on the
  top floor, `serve` (serve.py) runs the app as a command under textual-serve.
- `flows/`: what happens across screens: comparing, conversations (history, reopening,
  export), choosing the chat's provider or model, the provider the app starts on.
- `screens/`: the chat, comparison, history and key-sheet screens. Each lists its own palette
  commands (`Screen.COMMANDS`) and posts a message declared on itself when it needs the app.
- `widgets/`: panes, turns, the prompt, dialogs; they post messages to their screen.
- helpers for every floor, at the bottom and kept here beside the floors (not in a package of
  their own: other work moves in them, and their paths are what tests and benches import):
  `model_choice` (pieces of the model and provider pickers) above `palette` (the palette's
  plumbing), `clipboard`, `render_clock`, `themes`, `lag_probe`, `textual_layout`,
  `textual_strips` and `crash_report`, which import no other module of app/ui.
"""
