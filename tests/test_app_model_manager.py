"""The model manager dialog: presets and where they are, licence notes, downloads in a child process."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import socket
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.i18n import number_text
from app.models import manager as model_manager
from app.models import preset_notes
from app.models.manager import COLUMNS, ModelManagerDialog
from app.models.model_texts import memory_text, terms
from app.settings import AppSettings
from engine.families import CAPTION_PRESETS, family_named
from engine.files.models import MIMI_NAME, MOSHI_NAME, PRESETS, TOKENIZER_NAME
from engine.lm.model import LMConfig
from engine.runtime.gpu_memory import needed_gb


@pytest.fixture
def empty_hub(tmp_path, monkeypatch):
    """An empty Hugging Face cache (inherited by the download child process)."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE", "HF_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path / "hf"


def open_dialog(qtbot, model: str, in_use: str | None = None) -> ModelManagerDialog:
    dialog = ModelManagerDialog(AppSettings(model=model, device="cpu"), in_use=in_use)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def confirm_download(dialog) -> None:
    """Answer the question a download asks first: Download."""
    assert dialog.confirmation is not None and dialog.confirmation.isVisible()
    next(b for b in dialog.confirmation.buttons() if b.text() == "Download").click()


def test_each_model_says_what_it_is_whether_it_runs_here_and_which_is_in_use(qtbot, empty_hub):
    dialog = open_dialog(qtbot, "demo", in_use="demo")
    rows = {dialog.table.item(row, 0).text(): row for row in range(dialog.table.rowCount())}

    def cell(name, column):
        return dialog.table.item(rows[name], COLUMNS.index(column)).text()

    assert cell("demo", "Here") == "in use · runs here" and dialog.table.item(rows["demo"], 0).font().bold()
    assert not dialog.table.item(rows["moshiko"], 0).font().bold()
    assert cell("moshiko", "About") == "Moshi with a male voice (kyutai), bf16 weights"
    assert cell("personaplex", "About") == "PersonaPlex-7B (NVIDIA): choose a voice and a text role prompt"
    # This machine's torch is the CPU build: a real model needs a GPU with the memory int8 needs
    # (the lightest precision auto chooses) and the CUDA variant.
    need = {family: math.ceil(needed_gb(LMConfig.released(family_named(family)), "int8"))
            for family in ("moshi", "personaplex")}
    # 7B models in 8-bit, with their KV cache; PersonaPlex's file stores Moshi's weights and one table more.
    assert 10 < need["moshi"] <= need["personaplex"] < 24
    for name in ("moshiko", "personaplex"):
        assert cell(name, "Here") == (f"needs an NVIDIA GPU with {need[PRESETS[name].family]} GB and "
                                      f"{preset_notes.CUDA_VARIANT}")
    moshiko = PRESETS["moshiko"]
    assert preset_notes.fit_badge(moshiko, "no NVIDIA driver found", True, None, 15) == \
        "needs an NVIDIA GPU with 15 GB"
    assert preset_notes.fit_badge(moshiko, None, True, True, 15) == "fits this GPU"
    assert preset_notes.fit_badge(moshiko, None, True, False, 15) == "too big for this GPU: needs 15 GB"


def test_a_download_says_its_size_and_the_free_disk_first_and_starts_only_when_asked(qtbot, empty_hub, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a download that starts fails at once, never fetches
    dialog = open_dialog(qtbot, "moshiko")
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    question = dialog.confirmation.text()
    shown_free = float(re.search(r"has ([0-9.]+) GB free", question)[1])
    assert abs(shown_free - preset_notes.free_disk_gb(empty_hub)) < 1  # others may write to the disk meanwhile
    assert f"moshiko is about {PRESETS['moshiko'].approx_gb:.1f} GB" in question
    assert "not run in real time" in question and terms(PRESETS["moshiko"]) in question
    assert dialog.download is None  # nothing starts before the answer
    assert dialog.confirmation.defaultButton().text() != "Download"  # Enter does not start what cannot run here
    dialog.confirmation.button(dialog.confirmation.StandardButton.Cancel).click()
    assert dialog.download is None
    qtbot.mouseClick(dialog.use_button, Qt.LeftButton)  # using a model not here downloads it: asked too
    assert dialog.confirmation.isVisible() and dialog.isVisible()

    monkeypatch.setattr(model_manager, "free_disk_gb", lambda folder: 2.0)  # a nearly full disk
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    assert "not enough" in dialog.confirmation.text()
    assert [b.text() for b in dialog.confirmation.buttons()] != [] and \
        not any(b.text() == "Download" for b in dialog.confirmation.buttons())


@pytest.mark.parametrize("name", ["moshika-rl-seamless", "personaplex-rl-seamless"])
def test_a_non_commercial_gated_model_says_so_in_the_table_the_description_and_before_download(
        qtbot, empty_hub, monkeypatch, name):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a download that starts fails at once, never fetches
    dialog = open_dialog(qtbot, name)
    row = list(PRESETS).index(name)
    licence = dialog.table.item(row, COLUMNS.index("Licence")).text()
    assert "CC BY-NC 4.0" in licence and "non-commercial" in licence and "gated" in licence
    text = dialog.description.text()
    assert "Non-commercial use only" in text and "gated" in text and f"https://huggingface.co/kyutai/{name}" in text
    assert "first download" in text  # no commit is known for it: it keeps to the one first downloaded
    assert memory_text(PRESETS[name]) in text and "GB in bfloat16" in text
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    question = dialog.confirmation.text()
    assert "Non-commercial use only" in question and "Gated: accept its terms" in question
    assert dialog.download is None  # nothing starts before the answer
    dialog.confirmation.button(dialog.confirmation.StandardButton.Cancel).click()


def test_presets_are_listed_with_size_location_and_licence(qtbot, empty_hub):
    dialog = open_dialog(qtbot, "personaplex")
    names = [dialog.table.item(row, 0).text() for row in range(dialog.table.rowCount())]
    assert names[:len(PRESETS) + len(CAPTION_PRESETS)] == [*PRESETS, *CAPTION_PRESETS]  # then the voice models
    moshiko = names.index("moshiko")
    assert dialog.table.item(moshiko, COLUMNS.index("Size")).text() == f"{PRESETS['moshiko'].approx_gb:.1f} GB"
    assert dialog.table.item(moshiko, COLUMNS.index("On this machine")).text() == "not downloaded"
    assert dialog.selected_name() == "personaplex"
    text = dialog.description.text()
    assert "gated" in text and "accept" in text and "HF_TOKEN" in text and PRESETS["personaplex"].page in text
    assert dialog.download_button.isEnabled()
    dialog.table.selectRow(names.index("demo"))
    assert not dialog.download_button.isEnabled()  # the demo is built locally, never downloaded
    assert "untrained" in dialog.description.text()

    dialog.device_combo.setCurrentText("cpu")
    dialog.precision_combo.setCurrentText("float32")
    with qtbot.waitSignal(dialog.model_chosen) as chosen:
        qtbot.mouseClick(dialog.use_button, Qt.LeftButton)
    assert chosen.args == ["demo", "cpu", "float32"]


def test_every_model_built_on_this_machine_says_so_before_it_is_built(qtbot, empty_hub, tmp_path, monkeypatch):
    """The demo interpreter and the demo caption model are built here like the demo, never downloaded."""
    monkeypatch.setenv("PARLEY_CACHE_DIR", str(tmp_path / "nothing built"))
    dialog = open_dialog(qtbot, "demo")
    rows = {dialog.table.item(row, 0).text(): row for row in range(dialog.table.rowCount())}
    built_here = [name for name, preset in dialog.presets.items() if preset.repo is None]
    assert {"demo", "demo-interpreter", "demo-stt"} <= set(built_here)
    for name in built_here:
        assert dialog.table.item(rows[name], COLUMNS.index("On this machine")).text() == \
            "built on first use (about a minute)", name


def test_enter_uses_only_a_model_that_runs_here_and_the_device_box_offers_what_this_torch_has(qtbot, empty_hub):
    dialog = open_dialog(qtbot, "demo")
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow, timeout=5_000)
    names = [dialog.table.item(row, 0).text() for row in range(dialog.table.rowCount())]
    assert [dialog.device_combo.itemText(i) for i in range(dialog.device_combo.count())] == ["auto", "cpu"]
    assert dialog.use_button.isDefault()  # the demo runs here: Enter uses it
    assert dialog.focusWidget() is dialog.table
    device = dialog.device_combo.currentText()
    steps = names.index("moshiko") - names.index("demo")
    for _ in range(abs(steps)):
        qtbot.keyClick(dialog.table, Qt.Key_Down if steps > 0 else Qt.Key_Up)
    assert dialog.selected_name() == "moshiko" and dialog.device_combo.currentText() == device
    assert not dialog.use_button.isDefault()  # 15 GB that cannot run on this CPU: Enter downloads nothing
    qtbot.keyClick(dialog.table, Qt.Key_Return)
    assert dialog.confirmation is None


def test_an_offline_download_fails_with_a_message_a_person_can_act_on(qtbot, empty_hub, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    dialog = open_dialog(qtbot, "moshiko")
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    confirm_download(dialog)
    assert dialog.progress.isVisible() and dialog.cancel_button.isVisible()
    qtbot.waitUntil(lambda: dialog.download is None, timeout=60_000)
    text = dialog.description.text()
    assert text.startswith("Download failed:") and "HF_HUB_OFFLINE" in text
    assert not dialog.progress.isVisible()


def test_cancel_kills_a_hanging_download_at_once(qtbot, empty_hub, monkeypatch):
    with socket.socket() as server:  # accepts connections into its backlog and never answers
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.getsockname()[1]}")
        dialog = open_dialog(qtbot, "moshika")
        qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
        confirm_download(dialog)
        download = dialog.download
        server.settimeout(60)
        connection, _ = server.accept()  # the child is now inside the download, waiting for an answer
        assert download.is_running()
        qtbot.mouseClick(dialog.cancel_button, Qt.LeftButton)
        assert not download.is_running()
        assert dialog.download is None and "cancelled" in dialog.description.text()
        assert dialog.download_button.isEnabled()  # can be started again
        connection.close()


def test_a_real_model_says_which_gpu_this_computer_has(qtbot, empty_hub, monkeypatch):
    """Beside its memory need, before a 15 GB download: this computer's GPU, or why there is none."""
    import torch

    dialog = open_dialog(qtbot, "moshiko")
    # This machine's torch is the CPU build: the real reason, as the dialog computed it.
    assert f"This computer has no GPU these models can use (this build of torch ({torch.__version__}) has no " \
           "CUDA support); here they would not run in real time." in dialog.description.text()
    dialog.table.selectRow(list(PRESETS).index("demo"))
    assert "This computer" not in dialog.description.text()  # the demo needs no GPU

    class Card:
        name, total_memory = "NVIDIA GeForce RTX 4080", 16_375_000_000

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: Card())
    assert preset_notes.this_gpu(None) == "This computer's GPU: NVIDIA GeForce RTX 4080, 16.4 GB."


def test_the_manager_says_what_auto_would_choose_on_a_gpu_and_why():
    from engine.lm.model import LMConfig
    from engine.runtime.gpu_memory import Gpu, needed_gb

    card = Gpu("NVIDIA GeForce RTX 4080", 16.4, 15.9, (8, 9))
    int8 = needed_gb(LMConfig.moshi_7b(), "int8")
    text = preset_notes.auto_precision(PRESETS["moshiko"], card)
    assert text.startswith(f"Precision auto here: int8: moshiko needs about {int8:.1f} GB in int8, and the NVIDIA "
                           "GeForce RTX 4080 has 15.9 GB free. bfloat16 would need about")
    small = preset_notes.auto_precision(PRESETS["personaplex"], Gpu("NVIDIA GeForce RTX 3060", 12.9, 12.4, (8, 6)))
    assert small.startswith("Precision auto here: personaplex does not fit: in int8 it needs about")
    assert small.endswith("GB: choose int4 below.")
    tiny = preset_notes.auto_precision(PRESETS["personaplex"], Gpu("NVIDIA T400", 4.0, 3.8, (7, 5)))
    assert tiny == ("Precision auto here: personaplex does not fit in the NVIDIA T400's memory (3.8 GB free of "
                    "4.0 GB), even in int4.")


def pinned_cache(hf_home, revision: str) -> None:
    """moshiko's files in a Hugging Face cache at ``revision``, as a download of main at it leaves them."""
    from tests.test_models import add_to_cache, moshi_config

    add_to_cache(hf_home / "hub", PRESETS["moshiko"].repo, {
        "config.json": json.dumps(moshi_config()).encode(), MOSHI_NAME: b"lm", MIMI_NAME: b"m", TOKENIZER_NAME: b"t"},
        revision=revision)


def test_checking_for_an_update_offline_says_so_and_changes_nothing(qtbot, empty_hub, monkeypatch):
    monkeypatch.setenv("PARLEY_CACHE_DIR", str(empty_hub.parent / "parley"))
    pinned_cache(empty_hub, PRESETS["moshiko"].revision)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    dialog = open_dialog(qtbot, "moshiko")
    pin = PRESETS["moshiko"].revision
    assert f"Revision {pin[:7]} of kyutai/moshiko-pytorch-bf16 (the one Parley was tested with)" in \
        dialog.description.text()
    assert dialog.update_button.text() == "Check for update" and not dialog.download_button.isEnabled()
    qtbot.mouseClick(dialog.update_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.download is None, timeout=60_000)
    text = dialog.description.text()
    assert text.startswith("Checking for an update failed:")
    assert "Offline mode is on" in text and "HF_HUB_OFFLINE" in text
    assert dialog.update_button.text() == "Check for update" and dialog.statuses["moshiko"].revision == pin


def test_a_download_that_followed_main_is_offered_and_taken_when_asked(qtbot, empty_hub, monkeypatch):
    monkeypatch.setenv("PARLEY_CACHE_DIR", str(empty_hub.parent / "parley"))
    from tests.test_models import NEWER as newer
    pinned_cache(empty_hub, newer)  # downloaded before the presets were pinned: main was at another commit
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    dialog = open_dialog(qtbot, "moshiko")
    assert not dialog.statuses["moshiko"].present
    assert f"Revision {newer[:7]} is offered" in dialog.description.text()
    assert dialog.update_button.text() == f"Update to {newer[:7]}"
    qtbot.mouseClick(dialog.update_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.download is None, timeout=60_000)
    assert dialog.description.text().startswith("Downloaded to"), dialog.description.text()
    status = dialog.statuses["moshiko"]
    assert status.present and status.revision == newer
    assert dialog.update_button.text() == "Check for update"
    dialog._selection_changed()
    assert f"Revision {newer[:7]} of kyutai/moshiko-pytorch-bf16 (chosen here by an update)" in \
        dialog.description.text()


def test_a_newer_commit_on_the_hub_is_offered_not_taken(qtbot, empty_hub, monkeypatch):
    from tests.test_model_revisions import NEWER, _HubInfo, local_hub

    monkeypatch.setenv("PARLEY_CACHE_DIR", str(empty_hub.parent / "parley"))
    pinned_cache(empty_hub, PRESETS["moshiko"].revision)
    dialog = open_dialog(qtbot, "moshiko")
    with local_hub(_HubInfo) as endpoint:
        monkeypatch.setenv("HF_ENDPOINT", endpoint)  # inherited by the child that asks
        qtbot.mouseClick(dialog.update_button, Qt.LeftButton)
        qtbot.waitUntil(lambda: dialog.download is None, timeout=60_000)
    assert dialog.description.text().startswith(f"The hub has another revision of moshiko: {NEWER[:7]}")
    assert dialog.update_button.text() == f"Update to {NEWER[:7]}"
    assert dialog.statuses["moshiko"].revision == PRESETS["moshiko"].revision  # nothing changed yet


def open_on_gpu(qtbot, monkeypatch, total_gb: float, model: str = "moshiko") -> ModelManagerDialog:
    """The dialog on a computer whose GPU 0 is a ``total_gb`` card (0.5 GB of it in use elsewhere),
    as the dialog reads its device facts; nothing measured on it yet."""
    import torch

    from engine.runtime.gpu_memory import Gpu

    gpu = Gpu(f"NVIDIA GeForce of {total_gb:g} GB", total_gb, total_gb - 0.5, (8, 9))

    class Card:
        name, total_memory = gpu.name, total_gb * 1e9

    monkeypatch.setattr(model_manager, "cuda_unavailable_reason", lambda: None)
    monkeypatch.setattr(model_manager, "cuda_build", lambda: True)
    monkeypatch.setattr(model_manager, "gpu_memory", lambda: gpu)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: Card())
    return open_dialog(qtbot, model)


def cells(dialog, column: str) -> dict[str, str]:
    return {dialog.table.item(row, 0).text(): dialog.table.item(row, COLUMNS.index(column)).text()
            for row in range(dialog.table.rowCount())}


@pytest.mark.parametrize("total_gb", [8, 12, 16, 24])
def test_each_conversation_model_says_whether_captions_fit_beside_it_on_this_gpu(qtbot, empty_hub, monkeypatch,
                                                                                 total_gb):
    from engine.runtime.pair_memory import ModelShape, plan_pair

    dialog = open_on_gpu(qtbot, monkeypatch, total_gb)
    pair = cells(dialog, "With captions")
    # What the loader will do (engine.load_with_captions plans the same): the lightest real caption
    # model beside each real conversation model, and the demo's beside the demo.
    plan = plan_pair(ModelShape.of_preset("moshiko"), ModelShape.of_preset("stt-1b-en_fr"), dialog.cuda)
    if total_gb < 24:  # a 7B and captions need more than 16 GB in any precision
        assert plan.chosen is None
        assert pair["moshiko"] == (f"stt-1b-en_fr: does not fit beside it on this {total_gb:.1f} GB GPU (the pair "
                                   f"needs {plan.least_gb:.1f} GB)")
    else:  # int8 for the conversation leaves room for captions in bfloat16
        assert pair["moshiko"] == f"stt-1b-en_fr: fits in int8 + bfloat16 ({plan.chosen.gb:.1f} GB)"
    hibiki = plan_pair(ModelShape.of_preset("hibiki-zero"), ModelShape.of_preset("stt-1b-en_fr"), dialog.cuda)
    if total_gb == 12:  # int8 for both: what fits
        assert pair["hibiki-zero"] == f"stt-1b-en_fr: fits in int8 ({hibiki.chosen.gb:.1f} GB)"
    assert pair["demo"] == "demo-stt: runs here"
    assert pair["hibiki-2b"] == "known once downloaded"  # its architecture is read from its download
    # The caption models' own rows: their download size and whether they fit this GPU.
    here, size = cells(dialog, "Here"), cells(dialog, "Size")
    for name in CAPTION_PRESETS:
        assert pair[name] == ""
        assert size[name] == f"{CAPTION_PRESETS[name].approx_gb:.1f} GB"
    assert here["demo-stt"] == "runs here" and here["stt-1b-en_fr"] == "fits this GPU"
    # A caption model is not one to talk to: its Use button is off, and the description says why.
    dialog.table.selectRow(list(dialog.presets).index("stt-1b-en_fr"))
    assert not dialog.use_button.isEnabled() and dialog.download_button.isEnabled()
    assert "A caption model writes what the person says" in dialog.description.text()
    dialog.table.selectRow(list(dialog.presets).index("moshiko"))
    assert dialog.use_button.isEnabled()
    # The description says it for each caption model that may run beside it.
    big = plan_pair(ModelShape.of_preset("moshiko"), ModelShape.of_preset("stt-2.6b-en"), dialog.cuda)
    assert f"With captions: {pair['moshiko']}; stt-2.6b-en: " in dialog.description.text()
    assert (f"stt-2.6b-en: fits in int8 + bfloat16 ({big.chosen.gb:.1f} GB)." if total_gb == 24 else
            f"stt-2.6b-en: does not fit beside it on this {total_gb:.1f} GB GPU (the pair needs {big.least_gb:.1f} GB)."
            ) in dialog.description.text()


def test_without_a_gpu_the_pair_says_what_gpu_it_needs(qtbot, empty_hub):
    from engine.runtime.pair_memory import ANY_GPU, ModelShape, plan_pair

    pair = cells(open_dialog(qtbot, "demo"), "With captions")  # this machine's torch is the CPU build
    least = plan_pair(ModelShape.of_preset("personaplex"), ModelShape.of_preset("stt-1b-en_fr"), ANY_GPU).least_gb
    assert 15 < least < 24
    assert pair["personaplex"] == f"stt-1b-en_fr: needs an NVIDIA GPU with {math.ceil(least)} GB"
    assert pair["demo"] == "demo-stt: runs here"


def cache_rows(hub, repo: str, revision: str, rows: dict[str, bytes]) -> Path:
    """Pocket TTS rows in a Hugging Face cache as a download leaves them (blobs, nested snapshot
    links); each row's weights hold ``rows[row]``, and all rows share one tokenizer's blob."""
    from engine.pocket_tts.releases import default_voice

    root = hub / ("models--" + repo.replace("/", "--"))
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    for row, weights in rows.items():
        files = {"model.safetensors": weights, "tokenizer.json": b"{}",
                 f"embeddings/{default_voice(row)}.safetensors": b"v" + weights}
        for name, data in files.items():
            blob = root / "blobs" / hashlib.sha256(data).hexdigest()
            blob.write_bytes(data)
            link = root / "snapshots" / revision / "languages" / row / name
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(blob, link.parent))
    return root


def test_voice_models_say_their_size_where_they_run_and_which_repository_is_gated(qtbot, empty_hub):
    from engine.families import SPEECH_PRESETS

    dialog = open_dialog(qtbot, "demo")
    names = [dialog.table.item(row, 0).text() for row in range(dialog.table.rowCount())]
    assert names == [*PRESETS, *CAPTION_PRESETS, *SPEECH_PRESETS]  # the voice models' rows last
    assert {"pocket-tts", "pocket-tts-french", "pocket-tts-dutch", "pocket-tts-german_24l", "kyutai-tts"} <= set(names)
    here, size, where = cells(dialog, "Here"), cells(dialog, "Size"), cells(dialog, "On this machine")
    for name, preset in SPEECH_PRESETS.items():
        assert size[name] == f"{number_text(preset.approx_gb, 1)} GB" and where[name] == "not downloaded"
        assert cells(dialog, "With captions")[name] == ""
    assert here["pocket-tts"] == here["pocket-tts-italian_24l"] == "runs here"  # any CPU
    assert here["kyutai-tts"] == "needs an NVIDIA GPU (its memory need is known once downloaded)"
    dialog.table.selectRow(names.index("pocket-tts-french"))
    text = dialog.description.text()
    assert "runs on any CPU" in text and "the ungated kyutai/pocket-tts-without-voice-cloning" in text
    assert "the gated kyutai/pocket-tts (accept its terms on Hugging Face)" in text
    assert dialog.download_button.isEnabled() and not dialog.use_button.isEnabled()
    assert not dialog.update_button.isEnabled()  # pinned to the commits kyutai's package names
    assert dialog.remove_button.isVisible() and not dialog.remove_button.isEnabled()  # nothing here to remove
    dialog.table.selectRow(names.index("kyutai-tts"))
    assert "needs an NVIDIA GPU" in dialog.description.text()
    dialog.table.selectRow(names.index("moshiko"))
    assert not dialog.remove_button.isVisible()


def test_a_voice_model_in_the_cache_is_shown_and_removed_only_when_asked(qtbot, empty_hub):
    from engine.families import SPEECH_PRESETS
    from engine.pocket_tts.releases import REPOSITORY_WITHOUT_CLONING, revisions

    english, other = revisions("english")[1], revisions("french")[1]
    root = cache_rows(empty_hub / "hub", REPOSITORY_WITHOUT_CLONING, english, {"english": b"en"})
    cache_rows(empty_hub / "hub", REPOSITORY_WITHOUT_CLONING, other, {"french": b"fr", "german": b"de"})
    dialog = open_dialog(qtbot, "demo")
    names = list(dialog.presets)
    where = cells(dialog, "On this machine")
    assert where["pocket-tts"] == str(root / "snapshots" / english / "languages" / "english")
    assert where["pocket-tts-german"].endswith("german") and where["pocket-tts-dutch"] == "not downloaded"
    dialog.table.selectRow(names.index("pocket-tts-french"))
    assert dialog.remove_button.isEnabled() and not dialog.download_button.isEnabled()
    qtbot.mouseClick(dialog.remove_button, Qt.LeftButton)
    assert "Remove pocket-tts-french from this computer?" in dialog.confirmation.text()
    dialog.confirmation.button(dialog.confirmation.StandardButton.Cancel).click()
    assert dialog.statuses["pocket-tts-french"].present  # nothing goes before the answer
    qtbot.mouseClick(dialog.remove_button, Qt.LeftButton)
    next(b for b in dialog.confirmation.buttons() if b.text() == "Remove").click()
    assert dialog.description.text() == "Removed pocket-tts-french (3 files)."
    assert not dialog.statuses["pocket-tts-french"].present and dialog.statuses["pocket-tts-german"].present
    assert cells(dialog, "On this machine")["pocket-tts-french"] == "not downloaded"
    # The French row's own blobs went; the tokenizer the other rows link to stays.
    assert len(list((root / "blobs").iterdir())) == 5
    assert (root / "snapshots" / other / "languages" / "german" / "tokenizer.json").read_bytes() == b"{}"
    assert dialog.download_button.isEnabled() and not dialog.remove_button.isEnabled()
    assert set(SPEECH_PRESETS) <= set(dialog.statuses)


def test_a_voice_model_download_runs_in_the_child_and_says_why_it_failed(qtbot, empty_hub, monkeypatch):
    from engine.families import SPEECH_PRESETS

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a download that starts fails at once, never fetches
    dialog = open_dialog(qtbot, "demo")
    dialog.table.selectRow(list(dialog.presets).index("pocket-tts-spanish"))
    qtbot.mouseClick(dialog.download_button, Qt.LeftButton)
    question = dialog.confirmation.text()
    gb = number_text(SPEECH_PRESETS["pocket-tts-spanish"].approx_gb, 1)
    assert f"pocket-tts-spanish is about {gb} GB" in question and "not run in real time" not in question
    assert dialog.confirmation.defaultButton().text() == "Download"  # it runs here: Enter downloads it
    confirm_download(dialog)
    qtbot.waitUntil(lambda: dialog.download is None, timeout=60_000)
    text = dialog.description.text()
    assert text.startswith("Download failed: The Pocket TTS spanish model could not be downloaded from "
                           "kyutai/pocket-tts-without-voice-cloning"), text


def test_a_gpu_voice_in_the_cache_is_its_whole_repository_and_goes_whole(qtbot, empty_hub):
    from engine.families.kyutai_tts import TTS_1_6B_CONFIG
    from tests.test_models import NEWER, add_to_cache

    config = dict(TTS_1_6B_CONFIG)
    names = (config["moshi_name"], config["mimi_name"], config["tokenizer_name"])
    snapshot = add_to_cache(empty_hub / "hub", "kyutai/tts-1.6b-en_fr", {
        "config.json": json.dumps(config).encode(), **{n: n.encode() for n in names}}, revision=NEWER)
    dialog = open_dialog(qtbot, "demo")
    assert cells(dialog, "On this machine")["kyutai-tts"] == str(snapshot)
    assert cells(dialog, "Here")["kyutai-tts"].startswith("needs an NVIDIA GPU")
    dialog.table.selectRow(list(dialog.presets).index("kyutai-tts"))
    qtbot.mouseClick(dialog.remove_button, Qt.LeftButton)
    next(b for b in dialog.confirmation.buttons() if b.text() == "Remove").click()
    assert dialog.description.text() == "Removed kyutai-tts (4 files)."
    assert not (empty_hub / "hub" / "models--kyutai--tts-1.6b-en_fr").exists()
    assert cells(dialog, "On this machine")["kyutai-tts"] == "not downloaded"
