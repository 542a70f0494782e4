"""Start the desktop app up to its event loop in this process and print what it warned about.

Run as a script by tests/robustness/test_app_start.py, so every start has a process of its own: a window
left behind by one start must not meet a later test's event loop. ADVISOR_HOME says where the
settings and user data live; ADVISOR_TEST_FAILING_CONTEXT makes the solver fail at that context."""

from __future__ import annotations

import os
import sys


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication, QMessageBox

    import advisor.ui.store as store_module
    from advisor.app import main as app_main
    from advisor.core.evaluate import evaluate

    shown: list[str] = []
    QApplication.exec = lambda *_a: 0  # type: ignore[method-assign]
    QMessageBox.warning = staticmethod(lambda _parent, _title, text: shown.append(text))  # type: ignore[assignment]
    failing = os.environ.get("ADVISOR_TEST_FAILING_CONTEXT")
    if failing:

        def fake(s, explain=True):  # type: ignore[no-untyped-def]
            if s.workload.context == int(failing):  # a solver failure the bounds did not foresee
                raise ZeroDivisionError("float division by zero")
            return evaluate(s, explain=explain)

        store_module.evaluate = fake  # type: ignore[assignment]
    code = app_main([])
    print("\n".join(shown))
    return code


if __name__ == "__main__":
    sys.exit(main())
