"""The C++ layers hold: no header includes one of a layer above its own, and the drawing in
docs/architecture.md is the one the includes give (scripts/layers.py)."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("layers", ROOT / "scripts" / "layers.py")
assert _spec is not None and _spec.loader is not None
layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layers)


def test_no_header_includes_a_layer_above_its_own():
    assert layers.upward_includes() == []


def test_every_header_is_in_a_layer():
    for header in layers.includes():
        assert 0 <= layers.layer_of(header) < len(layers.LAYERS)


def test_the_check_finds_an_upward_include(tmp_path, monkeypatch):
    # The same check over a tree with one header of the Monte Carlo engine reaching up into the
    # scenario: it must be named, so that the test above cannot pass by finding nothing.
    (tmp_path / "montecarlo").mkdir()
    (tmp_path / "scenario").mkdir()
    (tmp_path / "montecarlo" / "engine.hpp").write_text('#include "trnmodel/scenario/fields.hpp"\n')
    (tmp_path / "scenario" / "fields.hpp").write_text('#include "trnmodel/check.hpp"\n')
    (tmp_path / "check.hpp").write_text("")
    monkeypatch.setattr(layers, "INCLUDE", tmp_path)
    assert layers.upward_includes() == ["montecarlo/engine.hpp (montecarlo) -> scenario/fields.hpp (scenario)"]


def test_the_architecture_drawing_is_generated_from_the_includes():
    assert layers.documented_drawing() == layers.drawing(), "run: python scripts/layers.py --write"
