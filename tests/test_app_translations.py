"""The interface in other languages (app/i18n.py), with the real window offscreen and the demo model:
every text the window and its dialogs show is a source of the translation catalogues (a census of the
English window), the French window shows the French of each text that has one, and nothing in the
French, German or Spanish window is squeezed at 1024x640. The catalogues themselves: complete, their
placeholders intact, their .qm files compiled from the committed .ts sources, and those sources hold
every string in app/."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QMenuBar,
    QTableWidget,
    QWidget,
)

from app.conversation.announcer import turn_announcement
from app.conversation.transcript import ASSISTANT, YOU, Turn
from app.i18n import LANGUAGES, TRANSLATED, TRANSLATIONS_DIR, date_time_text, install_translators, remove_translators
from app.models.manager import DEVICES, PRECISIONS
from app.widgets.meters import LevelMeter
from tests.test_app_layout import LONG_ERROR, misfits, slow_frames
from tests.test_app_window import Harness

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"\{[a-z_]*\}|%n")
# Texts of Qt's own widgets (a dialog's standard buttons, a key editor's placeholder), which Qt's own
# catalogue translates (app.i18n installs it with Parley's).
QT_OWN = {"OK", "Cancel", "Close", "Press shortcut"}
DIALOGS = ("open_persona_dialog", "open_voices_dialog", "open_model_manager", "open_talk_key_dialog")


def tool(name: str) -> str:
    """A Qt tool of the PySide6 install this interpreter runs (pyside6-lupdate, pyside6-lrelease)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found, f"{name} is missing: it comes with PySide6 (pip install PySide6-Essentials)"
    return found


def catalogue(language: str) -> dict[tuple[str, str], list[str]]:
    """(context, source) -> its translation (the plural forms of a %n message), from the .ts source."""
    messages = {}
    for context in ET.parse(TRANSLATIONS_DIR / f"parley_{language}.ts").getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            translation = message.find("translation")
            forms = [f.text or "" for f in translation.findall("numerusform")] or [translation.text or ""]
            if translation.get("type") in ("unfinished", "vanished", "obsolete"):
                forms = []
            messages[(name, message.findtext("source"))] = forms
    return messages


def template(source: str) -> re.Pattern:
    """A source text as a pattern its shown texts match: a placeholder is any text, %n a number."""
    parts = re.split(r"(\{[a-z_]*\}|%n)", source)
    return re.compile("".join(".*" if p.startswith("{") else r"\d+" if p == "%n" else re.escape(p) for p in parts),
                      re.DOTALL)


FRENCH = catalogue("fr")
TEMPLATES = [(template(source), source, forms) for (_context, source), forms in FRENCH.items()]


def shown_texts(top: QWidget) -> list[tuple[str, str]]:
    """(where, text) of every text ``top`` has, in the order its widgets were made: each visible
    widget's text, title, placeholder, items, tooltip and accessible name and description, and its
    menus' titles and entries."""
    found = [("title", top.windowTitle())]
    for widget in [top, *top.findChildren(QWidget)]:
        if widget.window() is not top or not widget.isVisible():
            continue
        kind = type(widget).__name__
        texts = [widget.toolTip(), widget.accessibleName(), widget.accessibleDescription()]
        if isinstance(widget, (QLabel, QAbstractButton)):
            texts.append(widget.text())
        if isinstance(widget, QGroupBox):
            texts.append(widget.title())
        if isinstance(widget, QLineEdit):
            texts.append(widget.placeholderText())
        if isinstance(widget, LevelMeter):
            texts.append(widget.label)
        if isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
        if isinstance(widget, QListWidget):
            texts += [widget.item(i).text() for i in range(widget.count())]
        if isinstance(widget, QTableWidget):  # its headers; the cells are the models' own data
            texts += [widget.horizontalHeaderItem(i).text() for i in range(widget.columnCount())]
        found += [(kind, text) for text in texts]
    for menu in top.findChildren(QMenu):
        if isinstance(menu.parent(), QMenuBar) and not menu.title():
            continue  # the menu bar's overflow menu: Qt's copy of menus already walked
        found.append(("menu", menu.title()))
        for action in menu.actions():
            if not action.isSeparator():  # a tooltip Qt makes from the text itself is left out
                made = action.toolTip() == action.text().replace("&", "").removesuffix("...")
                found += [("action", action.text()), ("action", "" if made else action.toolTip())]
    return found  # the empty ones too: two windows' walks pair up text by text


def data(text: str, harness) -> bool:
    """A text that is the person's or the model's data, not the interface's: numbers, names of
    files, devices, personas, voices and models, the model's role prompt (read by the model in
    English), the devices and precisions the command line takes too, the languages' own names; and
    Qt's own texts."""
    m = harness.window.model
    names = {"Parley", *LANGUAGES.values(), m.models.persona.name, *(e.name for e in m.models.personas.entries()),
             *m.models.voices,
             m.preferences.settings.model, *(d.label for d in m.devices.status.devices), *DEVICES, *PRECISIONS, *QT_OWN}
    plain = text.replace("&", "")
    return (not re.search(r"[A-Za-z]{2}", text) or text in names or plain in names
            or any(line.strip() == m.models.persona.role.strip() for line in text.splitlines()) or text.startswith("/"))


def covered(text: str, harness) -> bool:
    return data(text, harness) or any(pattern.fullmatch(text) for pattern, _source, _forms in TEMPLATES)


def untranslatable(texts: list[tuple[str, str]], harness) -> list[str]:
    """The texts shown that no catalogue source produces and that are not data; a text of several
    lines (a message and its details, joined by blank lines) may be covered line by line."""
    return sorted({f"{where}: {text!r}" for where, text in texts if text.strip() and not covered(text, harness)
                   and not all(covered(line, harness) for line in text.split("\n") if line.strip())})


@functools.cache
def language_templates(language: str) -> list[tuple[re.Pattern, str, list[str]]]:
    return [(template(source), source, forms) for (_context, source), forms in catalogue(language).items()]


def expected_to_change(text: str, language: str) -> bool:
    """Whether ``language``'s catalogue translates ``text`` into something else (a text it leaves
    alike, "Personas..." or "{s} s", may stay)."""
    matching = [(source, forms) for pattern, source, forms in language_templates(language) if pattern.fullmatch(text)]
    return bool(matching) and all(forms and source not in forms for source, forms in matching)


def open_harness(qtbot, tmp_path, app_demo_model) -> Harness:
    harness = Harness(qtbot, tmp_path, lambda *args: app_demo_model, start=False)
    harness.window.resize(1024, 640)
    QApplication.processEvents()
    return harness


def walk(harness, dialog: str | None) -> list[tuple[str, str]]:
    top = harness.window if dialog is None else getattr(harness.window.dialogs, dialog)()
    QApplication.processEvents()
    try:
        return shown_texts(top)
    finally:
        if top is not harness.window:
            top.close()


@pytest.mark.parametrize("dialog", [None, *DIALOGS])
def test_every_text_the_english_window_shows_is_a_source_of_the_catalogues(qtbot, tmp_path, app_demo_model, dialog):
    harness = open_harness(qtbot, tmp_path, app_demo_model)
    try:
        texts = walk(harness, dialog)
        assert sum(bool(text.strip()) for _, text in texts) > (60 if dialog is None else 8)  # it reached them
        assert untranslatable(texts, harness) == []
    finally:
        harness.close()


def test_the_census_finds_a_text_written_without_the_translation_system(qtbot, tmp_path, app_demo_model):
    """The rule above is not vacuous: a label set from a plain string is caught."""
    harness = open_harness(qtbot, tmp_path, app_demo_model)
    try:
        harness.window.conversation_panel.end_button.setText("Finish up")
        assert untranslatable(walk(harness, None), harness) == ["QPushButton: 'Finish up'"]
    finally:
        harness.close()


@pytest.mark.parametrize(("language", "dialog"), [*(("fr", d) for d in (None, *DIALOGS)), ("de", None), ("es", None)])
def test_each_translated_window_shows_its_language_for_every_text_that_has_one(qtbot, tmp_path, app_demo_model,
                                                                              language, dialog):
    """The same window built twice, in English and in ``language``, walked in the same order: each
    text the catalogue translates differs (every dialog in French; the main window in each)."""
    english = open_harness(qtbot, tmp_path / "en", app_demo_model)
    try:
        english_texts = walk(english, dialog)
    finally:
        english.close()
    translators = install_translators(QApplication.instance(), language)
    try:
        translated = open_harness(qtbot, tmp_path / language, app_demo_model)
        try:
            translated_texts = walk(translated, dialog)
        finally:
            translated.close()
    finally:
        remove_translators(QApplication.instance(), translators)
    assert [where for where, _ in english_texts] == [where for where, _ in translated_texts]
    unchanged = [f"{where}: {en!r}" for (where, en), (_, other) in zip(english_texts, translated_texts)
                 if en == other and expected_to_change(en, language)]
    assert unchanged == []
    changed = sum(en != other for (_, en), (_, other) in zip(english_texts, translated_texts))
    assert changed >= (40 if dialog is None else 5)


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_translated_window_fits_1024x640_with_a_banner_and_the_speed_warning(qtbot, tmp_path, app_demo_model,
                                                                                  qapp, language):
    """Translations run longer than English: at the smallest size the window is made for, nothing is
    squeezed or cut off (the layout test's own measure), with every optional part shown."""
    translators = install_translators(qapp, language)
    harness = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        w = harness.window
        end = catalogue(language)[("ConversationPanel", "End")][0]
        assert w.conversation_panel.end_button.text() == end != "End"  # translated, indeed
        harness.frames(3)
        w.show_error(LONG_ERROR, resumable=True)
        slow_frames(harness, 200)
        w.meters_panel.advanced_box.setChecked(True)
        w.set_open_mic(True)
        assert w.conversation_panel.speed_warning.isVisible() and w.conversation_panel.headphones_note.isVisible()
        w.resize(1024, 640)
        QApplication.processEvents()
        assert w.width() <= 1024 and w.height() <= 640
        assert misfits(w) == []
    finally:
        harness.close()
        remove_translators(qapp, translators)


def test_counts_take_each_language_s_plural_and_numbers_its_decimal_mark(qapp):
    """The English catalogue holds only plurals: "1 second" needs it as much as French does."""
    for language, one, many in (("en", "You spoke for 1 second.", "The assistant spoke for 2 seconds."),
                                ("fr", "Vous avez parlé pendant 1 seconde.",
                                 "L'assistant a parlé pendant 2 secondes."),
                                ("de", "Sie haben 1 Sekunde lang gesprochen.",
                                 "Der Assistent hat 2 Sekunden lang gesprochen.")):
        translators = install_translators(qapp, language)
        try:
            assert turn_announcement(Turn(YOU, 0.0, 1.2)) == one
            assert turn_announcement(Turn(ASSISTANT, 0.0, 2.0)) == many
            assert QLocale().toString(1.5, "f", 1) == ("1.5" if language == "en" else "1,5")
        finally:
            remove_translators(qapp, translators)


def test_a_date_is_written_as_the_locale_writes_it_and_as_iso_without_one(qapp):
    moment = datetime(2026, 12, 6, 14, 43)
    before = QLocale()
    try:
        QLocale.setDefault(QLocale.c())  # LANG=C or C.UTF-8: Qt would write "6 12 2026 14:43"
        assert date_time_text(moment) == "2026-12-06 14:43"
        QLocale.setDefault(QLocale(QLocale.English, QLocale.UnitedStates))
        assert date_time_text(moment).startswith("12/6/26 2:43")  # then " PM", its space as the CLDR has it
        QLocale.setDefault(QLocale(QLocale.French, QLocale.France))
        assert date_time_text(moment) == "06/12/2026 14:43"
    finally:
        QLocale.setDefault(before)


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_catalogue_is_complete_and_keeps_every_placeholder(language):
    messages = catalogue(language)
    assert len(messages) == len(FRENCH)
    unfinished = [source for (_context, source), forms in messages.items() if not all(forms)]
    assert unfinished == []
    broken = [f"{source!r} -> {form!r}" for (_context, source), forms in messages.items() for form in forms
              if set(PLACEHOLDER.findall(form)) != set(PLACEHOLDER.findall(source))
              and not ("%n" in source and set(PLACEHOLDER.findall(form)) == set(PLACEHOLDER.findall(source)) - {"%n"})]
    assert broken == []
    for (_context, source), forms in messages.items():  # each formats with its source's values
        values = {name[1:-1]: "x" for name in re.findall(r"\{[a-z_]*\}", source)}
        for form in forms:
            form.format(**values)


def test_the_committed_qm_files_are_compiled_from_the_ts_sources(tmp_path):
    """The .qm files the app loads (and the bundles ship) are what `make translations` makes."""
    for ts in sorted(TRANSLATIONS_DIR.glob("parley_*.ts")):
        compiled = tmp_path / ts.with_suffix(".qm").name
        subprocess.run([tool("pyside6-lrelease"), "-silent", str(ts), "-qm", str(compiled)], check=True)
        assert compiled.read_bytes() == ts.with_suffix(".qm").read_bytes(), f"run make translations ({ts.name})"


def test_the_ts_sources_hold_every_translatable_string_of_the_app(tmp_path):
    """A string wrapped in tr()/translate() after the last `make translations` fails here."""
    fresh = tmp_path / "parley_fr.ts"
    sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app").rglob("*.py"))
    subprocess.run([tool("pyside6-lupdate"), "-silent", "-locations", "none", *sources, "-ts", str(fresh)],
                   check=True, cwd=ROOT)
    found = {(c.findtext("name"), m.findtext("source")) for c in ET.parse(fresh).getroot().iter("context")
             for m in c.iter("message")}
    assert sorted(found - set(FRENCH)) == [], "run make translations"
    assert sorted(set(FRENCH) - found) == [], "run make translations (these are no longer in app/)"


def file_dialog_labels(qapp) -> set[str]:
    """The labels of Qt's own save dialog (where the desktop offers none of its own, as under X11
    without a portal)."""
    from PySide6.QtWidgets import QFileDialog

    dialog = QFileDialog(None, "Save conversation")
    dialog.setOption(QFileDialog.DontUseNativeDialog)
    dialog.setAcceptMode(QFileDialog.AcceptSave)
    dialog.show()
    qapp.processEvents()
    try:
        return {label.text() for label in dialog.findChildren(QLabel) if label.isVisible() and label.text()}
    finally:
        dialog.close()


@pytest.mark.parametrize("language", TRANSLATED)
def test_qt_s_own_file_dialog_speaks_each_language(qapp, language):
    """Qt's catalogue lacks "&Look in:" and "Files of &type:" in French and Spanish: Parley's has them."""
    english = file_dialog_labels(qapp)
    translators = install_translators(qapp, language)
    try:
        translated = file_dialog_labels(qapp)
    finally:
        remove_translators(qapp, translators)
    assert len(english) == 3 and english & translated == set()
