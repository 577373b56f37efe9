"""The first-frame bench's reference (bench_first_frame.py): a bare Textual app of three widgets,
Header, an Input with the placeholder the bench waits for, and Footer. Its own file, so that
the reference loads nothing of the bench's (argparse, statistics, subprocess...)."""

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="Ask anything")
        yield Footer()


if __name__ == "__main__":
    Bare().run()
