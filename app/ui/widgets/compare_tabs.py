"""The row of tabs a comparison shows when the terminal is too narrow for its panes side by side:
one tab per pane, naming it and its state, the selected pane's tab active.

Textual's own Tabs (click a tab, or ←/→ while the row has focus); the labels are literal
Content, never markup, since a pane's name comes from the config and its model from a server.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Tab, Tabs

from app.compare.status import tab_segments
from app.ui.widgets.status_bar import segments_content


def tab_label(number: int, label: str, state: str) -> Content:
    return segments_content(tab_segments(number, label, state))


class PaneTabs(Tabs):
    DEFAULT_CSS = """
    PaneTabs {
        display: none;
        background: $background;
    }
    """

    def reorder(self, tab_ids: list[str]) -> None:
        """Lay the tabs out in this order (a blind comparison's letter order)."""
        tab_list = self.query_one("#tabs-list")
        tabs = [tab for tab_id in tab_ids if (tab := self.get_tab(tab_id)) is not None]
        for slot, tab in enumerate(tabs):
            if slot == 0:
                tab_list.move_child(tab, before=0)
            else:
                tab_list.move_child(tab, after=tabs[slot - 1])
        self.call_after_refresh(self._highlight_active)  # the underline follows its tab

    def relabel(self, tab_id: str, label: Content) -> None:
        tab = self.get_tab(tab_id)
        if tab is not None and tab.label != label:
            tab.label = label


__all__ = ["PaneTabs", "Tab", "tab_label"]
