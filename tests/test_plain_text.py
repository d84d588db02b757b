"""What files and devices wrote is shown as written, never as HTML: a conversation's title (its file
name), the model a file names, a path, in the window's labels, its questions and its tooltips.
``shown`` renders a string as Qt shows it (a label's, a message box's or a tooltip's format)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import Qt, QTextDocument
from PySide6.QtWidgets import QMessageBox

from engine.files.conversation import read_conversation, write_conversation
from tests.test_app_library import folder, saved_conversation, window  # noqa: F401 - fixtures

TITLE = "<b>Trip <img src=cat.png> <a href=https:evil.example>click"  # a file name may hold all of it
MODEL = "<a href='https://evil.example/'>demo</a><img src='/usr/share/icons/hicolor/48x48/apps/parley.png'>"


def shown(text: str, text_format=Qt.AutoText) -> str:
    """What Qt shows of ``text`` in a label, message box or tooltip of that format."""
    document = QTextDocument()
    rich = text_format == Qt.RichText or text_format == Qt.AutoText and Qt.mightBeRichText(text)
    document.setHtml(text) if rich else document.setPlainText(text)
    return document.toPlainText()


def saved_with(folder, saved_conversation, name: str, model: str):  # noqa: F811
    stored = read_conversation(saved_conversation)
    meta = {k: v for k, v in stored.meta.items() if k not in ("format", "version", "checksum")}
    path = folder / f"{name}.parley"
    write_conversation(path, stored.tensors, {**meta, "model": model, "fingerprint": "another-model"})
    return path


def entry_of(window, path, qtbot):  # noqa: F811
    qtbot.waitUntil(lambda: window.library.row_of(path) is not None, timeout=10_000)
    return window.library.entries[window.library.row_of(path)]


def test_the_another_model_question_shows_a_files_title_as_written(window, folder, saved_conversation, qtbot,  # noqa: F811
                                                                     monkeypatch, tmp_path):
    """The question's label opens links in the browser: a title was a clickable link there."""
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda _w, _t, text, *a: asked.append(text) or QMessageBox.Cancel)
    mine = tmp_path / "models" / "my-moshi"  # a model folder the person loads: offered by name
    mine.mkdir(parents=True)
    window.model.preferences.update(model=str(mine))
    entry = entry_of(window, saved_with(folder, saved_conversation, TITLE, "my-moshi"), qtbot)
    window.files.open_entry(entry)
    assert asked and f"“{TITLE}” was saved with the model my-moshi" in shown(asked[-1])
    tip = window.library.data(window.library.index(window.library.row_of(entry.path)), Qt.ToolTipRole)
    assert str(entry.path) in shown(tip)


def test_a_model_a_file_names_is_said_as_written(window, folder, saved_conversation, qtbot):  # noqa: F811
    window.files.open_entry(entry_of(window, saved_with(folder, saved_conversation, "Trip", MODEL), qtbot))
    label = window.error_box.label
    assert label.isVisibleTo(window) and f"saved with the model {MODEL}," in shown(label.text(), label.textFormat())


@pytest.mark.parametrize("name", ["header.status_label", "header.model_label", "header.persona_label",
                                  "status_notes.talk_key_label", "status_notes.crash_protection_label"])
def test_the_windows_labels_of_names_from_elsewhere_are_plain_text(window, name):  # noqa: F811
    part, attribute = name.split(".")
    label = getattr(getattr(window, part), attribute)
    label.setText(MODEL)
    label.setToolTip(MODEL)
    assert shown(label.text(), label.textFormat()) == MODEL and shown(label.toolTip()) == MODEL
