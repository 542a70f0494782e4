"""A search box over a tree of catalog entries grouped by class or family: the pick list every panel uses."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from advisor.catalog.search import search

ID_ROLE = Qt.ItemDataRole.UserRole


class CatalogList(QWidget):
    picked = Signal(str)  # entry id

    def __init__(
        self,
        placeholder: str,
        columns: Sequence[str],
        group: Callable[[Any], str],
        row: Callable[[Any], Sequence[str]],
        tooltip: Callable[[Any], str],
        parent: QWidget | None = None,
        searcher: Callable[[list[Any], str], list[Any]] | None = None,
    ):
        super().__init__(parent)
        self._group, self._row, self._tooltip = group, row, tooltip
        self._search = searcher or search
        self._entries: list[Any] = []
        self._scroll_pending = False  # the selection is not in view yet (the tree had no height)
        self.search = QLineEdit()
        self.search.setPlaceholderText(placeholder)
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Type any part of a name, vendor or family; every word must match")
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(list(columns))
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setMinimumHeight(140)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.search)
        lay.addWidget(self.tree)
        self.search.textChanged.connect(self._fill)
        self.search.returnPressed.connect(self._pick_first)
        self.tree.itemActivated.connect(self._activated)
        self.tree.itemClicked.connect(self._activated)
        self.tree.viewport().installEventFilter(self)

    def set_entries(self, entries: Sequence[Any]) -> None:
        self._entries = list(entries)
        self._fill(self.search.text())

    def _fill(self, text: str) -> None:
        with QSignalBlocker(self.tree):
            self.tree.clear()
            groups: dict[str, QTreeWidgetItem] = {}
            for e in self._search(self._entries, text):
                name = self._group(e)
                parent = groups.get(name)
                if parent is None:
                    parent = QTreeWidgetItem(self.tree, [name])
                    parent.setFlags(parent.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                    f = parent.font(0)
                    f.setBold(True)
                    parent.setFont(0, f)
                    groups[name] = parent
                item = QTreeWidgetItem(parent, list(self._row(e)))
                item.setData(0, ID_ROLE, e.id)
                item.setToolTip(0, self._tooltip(e))
            self.tree.expandAll()
            for i in range(self.tree.columnCount()):
                self.tree.resizeColumnToContents(i)

    def select_id(self, entry_id: str | None) -> None:
        with QSignalBlocker(self.tree):
            self.tree.clearSelection()
            for child in self._entry_items():
                if child.data(0, ID_ROLE) == entry_id:
                    child.setSelected(True)
                    self._scroll_to_selection()
                    return

    def _entry_items(self) -> Iterator[QTreeWidgetItem]:
        """The entries (second level) under every group heading, in display order."""
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            if top is None:
                continue
            for j in range(top.childCount()):
                if (child := top.child(j)) is not None:
                    yield child

    def _scroll_to_selection(self) -> None:
        """Bring the selected entry into view. Before the window is laid out the tree has no height
        and scrolling does nothing, so it is tried again when the tree's viewport gets its size."""
        items = self.tree.selectedItems()
        if not items:
            self._scroll_pending = False
            return
        self.tree.scrollToItem(items[0])
        view, row = self.tree.viewport(), self.tree.visualItemRect(items[0])
        self._scroll_pending = not (
            view.isVisible() and view.rect().top() <= row.top() and row.bottom() <= view.rect().bottom()
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            self._scroll_pending
            and watched is self.tree.viewport()
            and event.type() in (QEvent.Type.Resize, QEvent.Type.Show)
        ):
            self._scroll_to_selection()
        return super().eventFilter(watched, event)

    def visible_ids(self) -> list[str]:
        return [child.data(0, ID_ROLE) for child in self._entry_items()]

    def _activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        entry_id = item.data(0, ID_ROLE)
        if entry_id:
            self.picked.emit(entry_id)

    def _pick_first(self) -> None:
        ids = self.visible_ids()
        if ids:
            self.picked.emit(ids[0])
