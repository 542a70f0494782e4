"""Work that can take a while runs off the GUI thread: importing a model file and fitting η to a paste
(the host bandwidth test has its own thread, advisor.ui.measure_bandwidth). Results and failures arrive on
the GUI thread as signals, so the window keeps painting and answering while the work runs, and a
cancelled task delivers nothing at all.

    task = Task(lambda: read_model_file(path), owner=window)
    task.succeeded.connect(apply)        # on the GUI thread, never after cancel()
    task.failed.connect(show_error)      # the exception the work raised
    busy_dialog(window, "Import model", f"Reading {path.name}…", task)   # progress and Cancel
    task.start()
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, QTimer, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

SHOW_AFTER_MS = 300  # a quick task never flashes a progress dialog
_RUNNING: set[Task] = set()  # tasks whose thread has not ended: kept from garbage collection


class Task(QThread):
    """Runs `work()` in its own thread and delivers its result (`succeeded`) or the exception it raised
    (`failed`) once, on the thread that made the task, unless cancel() came first. Python cannot stop a
    thread from outside, so cancelled work runs to its end (every reader and fit is bounded to about
    a second) and its result is dropped: whoever cancels never sees half of it applied."""

    succeeded = Signal(object)
    failed = Signal(object)  # the exception
    _ended = Signal(bool, object)  # emitted in the worker thread, handled (queued) in the task's own

    def __init__(self, work: Callable[[], object], owner: QObject | None = None) -> None:
        # Not a Qt child of `owner`: a QThread destroyed while it runs aborts the process, and a window
        # can close during a read. The owner's going away cancels the task instead; the task keeps itself
        # alive until its thread ends, and the application waits for it at quit.
        super().__init__()
        self._work = work
        self._cancelled = threading.Event()
        self._ended.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        if owner is not None:
            owner.destroyed.connect(self.cancel)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)
        self.started.connect(lambda: _RUNNING.add(self))
        self.finished.connect(lambda: _RUNNING.discard(self))

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def cancel(self) -> None:
        self._cancelled.set()

    def stop(self, timeout_ms: int = 10_000) -> None:
        """Cancel and wait for the work to end: before the task's owner goes away."""
        self.cancel()
        if self.isRunning():
            self.wait(timeout_ms)

    def run(self) -> None:
        try:
            result = self._work()
        except Exception as err:  # any failure of the work is the receiver's message, never a dead thread
            self._ended.emit(False, err)
            return
        self._ended.emit(True, result)

    def _deliver(self, ok: bool, value: object) -> None:
        if self._cancelled.is_set():  # checked here too: a cancel may come after the work ended
            return
        (self.succeeded if ok else self.failed).emit(value)


def failure_message(err: BaseException, where: str | None = None) -> str:
    """One line for a task's failure: a reader's own message (its errors are ValueErrors and OSErrors),
    otherwise the kind of error too; prefixed with `where` (the file) when the message does not name it."""
    text = (
        str(err)
        if isinstance(err, (ValueError, OSError)) and str(err)
        else f"{type(err).__name__}{': ' + str(err) if str(err) else ''}"
    )
    return f"{where}: {text}" if where and where not in text else text


def busy_dialog(parent: QWidget, title: str, text: str, task: Task) -> QProgressDialog:
    """A busy indicator with Cancel for `task` (shown only if it runs past SHOW_AFTER_MS); Cancel cancels
    the task, and the dialog goes away when the task ends."""
    dialog = QProgressDialog(text, "Cancel", 0, 0, parent)  # range 0..0: busy, no fraction known
    dialog.setWindowTitle(title)
    dialog.setObjectName("task-progress")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.canceled.connect(task.cancel)
    show = QTimer(dialog)  # Qt 6 shows a progress dialog on its own only from setValue, never called here
    show.setSingleShot(True)
    show.timeout.connect(lambda: None if task.isFinished() or task.cancelled else dialog.show())
    show.start(SHOW_AFTER_MS)
    task.finished.connect(show.stop)
    task.finished.connect(dialog.reset)  # hides it
    task.finished.connect(dialog.deleteLater)
    return dialog
