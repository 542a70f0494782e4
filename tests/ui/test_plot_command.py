"""`advisor.cli plot` writes the same slide PNG with no window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from advisor.cli import main


@pytest.mark.parametrize("axis", ["context", "batch"])
def test_plot_writes_slide_png(qtbot, tmp_path: Path, capsys: pytest.CaptureFixture[str], axis: str) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / f"{axis}.png"
    assert (
        main(
            [
                "plot",
                "--axis",
                axis,
                "--hardware",
                "rtx-4090",
                "--model",
                "llama-3.1-8b",
                "--quant",
                "q4_k_m",
                "--out",
                str(out),
                "--width",
                "1280",
                "--height",
                "720",
            ]
        )
        == 0
    )
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1280, 720)
    assert len({img.pixel(x, y) for x in range(0, 1280, 31) for y in range(0, 720, 23)}) > 10


def test_plot_to_unwritable_path_is_one_line(qtbot, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "f").write_text("x")
    assert main(["plot", "--axis", "context", "--out", str(tmp_path / "f" / "p.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot write" in err and "\n" not in err


def test_no_published_leaves_out_only_the_squares(qtbot, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    base = [
        "plot",
        "--axis",
        "context",
        "--hardware",
        "rtx-4090",
        "--model",
        "llama-3.1-8b",
        "--quant",
        "q4_k_m",
        "--width",
        "960",
        "--height",
        "540",
    ]
    with_sq, without = tmp_path / "with.png", tmp_path / "without.png"
    assert main([*base, "--out", str(with_sq)]) == 0
    assert main([*base, "--out", str(without), "--no-published"]) == 0
    a, b = QImage(str(with_sq)), QImage(str(without))
    differ = [(x, y) for x in range(960) for y in range(540) if a.pixel(x, y) != b.pixel(x, y)]
    legend = [(x, y) for x, y in differ if x < 300 and y > 300]  # the legend box, one entry shorter
    squares = len(differ) - len(legend)  # four squares of 13 px, nothing else moved
    assert legend and 100 < squares < 1500, (len(legend), squares)
