"""`parley compare-precision`: teacher-forced agreement of precisions with a reference one."""

from __future__ import annotations

import json

import numpy as np

from app.cli.command import main
from engine import write_wav

FRAMES = 10


def test_compare_precision_reports_agreement_and_kl_and_its_reference_agrees_with_itself(tmp_path):
    rng = np.random.default_rng(0)
    wav, out = tmp_path / "talk.wav", tmp_path / "cmp.json"
    write_wav(wav, (0.1 * rng.standard_normal(FRAMES * 1920)).astype(np.float32))
    assert main(["compare-precision", "--model", "demo", "--device", "cpu", "--input", str(wav),
                 "--precisions", "float32", "int8", "int4", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    reference, int8, int4 = report["results"]
    assert report["reference"] == "float32" and reference["frames"] == int8["frames"] == FRAMES
    # Teacher-forced on its own greedy tokens, the reference predicts exactly them.
    assert (reference["text_agreement"], reference["audio_agreement"], reference["frame_agreement"],
            reference["mean_text_kl"]) == (1.0, 1.0, 1.0, 0.0)
    assert int8["loaded_as"] == "int8" and int8["mean_text_kl"] >= 0.0
    assert 0.0 <= int8["frame_agreement"] <= int8["audio_agreement"] <= 1.0
    # int4 computes through torch's fused kernel on tiles made at load (engine.kernels.int4_tiled)
    assert int4["loaded_as"] == "int4" and int4["frames"] == FRAMES and int4["mean_text_kl"] >= 0.0

