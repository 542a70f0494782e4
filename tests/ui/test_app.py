"""Start-up: --screenshot, --scenario, the last session coming back, and model import in the window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from advisor.app import main
from advisor.session import Session, save_session
from advisor.settings import Settings, load_settings, save_settings
from advisor.ui.feel_dialog import words_after
from advisor.ui.importer import import_model_file
from advisor.ui.main_window import MainWindow


def test_screenshot_renders_window(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "shot.png"
    assert main(["--screenshot", str(out)]) == 0
    img = QImage(str(out))
    assert img.width() >= 1200 and img.height() >= 800


def test_screenshot_with_scenario_and_bad_scenario(qtbot, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    scen = tmp_path / "s.json"
    save_session(Session(), scen)
    assert main(["--screenshot", str(tmp_path / "a.png"), "--scenario", str(scen)]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert main(["--screenshot", str(tmp_path / "b.png"), "--scenario", str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err
    assert not (tmp_path / "b.png").exists()


def test_close_saves_session_and_layout(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    window.store.update("workload", context=12345)
    window.close()
    save_settings(window.closed_settings)
    settings, problem = load_settings()
    assert problem is None
    assert settings.session is not None and settings.session.scenario.workload.context == 12345
    assert settings.window_state


def test_last_session_comes_back(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    session = Session().model_copy(
        update={
            "scenario": Session().scenario.model_copy(
                update={"workload": Session().scenario.workload.model_copy(update={"context": 777})}
            )
        }
    )
    save_settings(Settings(session=session))
    out = tmp_path / "shot.png"
    # --screenshot shows the default scenario for docs; the restored session is checked through the store
    from advisor.catalog.loader import load_catalog
    from advisor.ui.store import Store

    settings, _ = load_settings()
    store = Store(load_catalog(None), settings.session)
    assert store.session.scenario.workload.context == 777
    assert main(["--screenshot", str(out)]) == 0


def test_import_config_json_switches_model(qtbot, tmp_path: Path, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
    }
    folder = tmp_path / "My-Llama-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg))
    assert import_model_file(window, folder / "config.json")
    m = window.store.session.scenario.model
    assert m.layers == 32 and m.kv_heads == 8
    assert m.total_params_b == pytest.approx(8.03, rel=0.02)
    assert window.store.session.model_id in window.store.catalog.models


def test_import_broken_file_says_so(qtbot, tmp_path: Path, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    before = window.store.session
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"NOPE" + b"\0" * 64)
    assert not import_model_file(window, bad)
    assert window.store.session == before
    assert "broken.gguf" in window.statusBar().currentMessage()


def test_feel_it_word_schedule() -> None:
    assert words_after(0.5, 20, ttft=1.0, n_words=100) == 0  # still prefilling
    assert words_after(3.0, 13, ttft=1.0, n_words=100) == 20  # 2 s × 13 tok/s ÷ 1.3 tokens/word
    assert words_after(100, 50, ttft=0, n_words=100) == 100


def test_hover_readout_shows_exact_values(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    plot = window.plots["context"]
    c = window.store.snapshot.curves["context"]
    plot.show_readout(10)
    assert plot.readout.isVisible()
    assert f"{c.decode[10]:.1f} tok/s realistic" in plot.readout.textItem.toPlainText()


def test_hover_in_the_shared_scene_reaches_only_the_plot_under_the_mouse(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    params, batch = window.plots["params"], window.plots["batch"]
    assert params.scene() is batch.scene()  # one view, one scene for the three plots
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    centre = params.vb.sceneBoundingRect().center()
    params.scene().sigMouseMoved.emit(centre)
    qtbot.waitUntil(params.readout.isVisible, timeout=2000)
    assert not batch.readout.isVisible()
    assert "B parameters" in params.readout.textItem.toPlainText()


def test_import_moe_gguf_keeps_its_expert_and_other_bits(qtbot, tmp_path: Path, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from tests.catalog.gguf_files import write_gguf

    w = write_gguf(tmp_path / "moe.gguf", arch="qwen3moe", name="Tiny MoE", experts=8, used=2)
    assert import_model_file(window, w.path)
    q = window.store.session.scenario.quant
    assert q.dense_bits_per_weight is not None and q.dense_bits_per_weight > q.bits_per_weight
    assert window.store.session.quant_id is None and "bpw" in q.name
    r = window.store.snapshot.result
    assert r.weights_gb * 1e9 == pytest.approx(w.tensor_bytes, rel=1e-6)  # the file's bytes, not an average
