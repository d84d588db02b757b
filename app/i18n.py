"""The interface's language: Qt's translation system, the languages Parley ships, and the translators
installed at start.

Every visible string goes through Qt: ``self.tr("...")`` in a QObject subclass, ``translate("Context",
"...")`` (this module's name for ``QCoreApplication.translate``) elsewhere, ``QT_TRANSLATE_NOOP`` for a
table of texts written at import and translated where it is shown. A text with values is a whole
sentence with ``{name}`` placeholders, filled by ``.format`` after translation; a count is ``%n`` with
the count as the third argument, so each language picks its plural. ``make translations`` collects them
into ``app/translations/parley_<language>.ts`` (pyside6-lupdate) and compiles the ``.qm`` files the app
loads (pyside6-lrelease); the ``.qm`` files are committed, so a checkout runs and both bundles ship them.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QDateTime, QLibraryInfo, QLocale, QTranslator

TRANSLATIONS_DIR = Path(__file__).resolve().parent / "translations"
CATALOGUE = "parley"  # parley_fr.qm, ...
# AppSettings.language -> the language's own name (never translated: a person finds their language by it).
# "" follows the system's language.
LANGUAGES = {"": "System", "en": "English", "fr": "Français", "de": "Deutsch", "es": "Español"}
TRANSLATED = ("fr", "de", "es")  # the languages translated (English is the source; its catalogue has the plurals)

translate = QCoreApplication.translate
# Texts of Qt's own file dialog that Qt's catalogue lacks for some languages (French, Spanish): Parley's
# catalogue holds them, and Qt's dialog finds them there (an application's translators are all asked).
QT_CATALOGUE_GAPS = (QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"), QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"))


def interface_locale(language: str) -> QLocale:
    """The locale the interface uses for ``language`` (an ``AppSettings.language``): the system's
    for "" or a language Parley does not know."""
    return QLocale(language) if language in LANGUAGES and language else QLocale.system()


def install_translators(app: QCoreApplication, language: str) -> list[QTranslator]:
    """Make ``language``'s locale the default (numbers, dates) and install Parley's catalogue for it
    with Qt's own (its dialogs' buttons, where the Qt build ships it), or the English one (its plural
    forms) for a language Parley does not ship; returns the translators installed. Call before any
    window is made."""
    locale = interface_locale(language)
    QLocale.setDefault(locale)
    parley = QTranslator(app)
    if not parley.load(locale, CATALOGUE, "_", str(TRANSLATIONS_DIR)):
        # English, or a language Parley does not ship: English, with its plurals ("1 second"); Qt's own
        # dialogs stay English too, not half translated.
        english = parley.load(QLocale(QLocale.English), CATALOGUE, "_", str(TRANSLATIONS_DIR))
        return [parley] if english and app.installTranslator(parley) else []
    installed = [parley]
    qt = QTranslator(app)
    if qt.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.TranslationsPath)):
        installed.append(qt)
    for translator in installed:
        app.installTranslator(translator)
    return installed


def remove_translators(app: QCoreApplication, translators: list[QTranslator]) -> None:
    """Back to English and the system's locale (the tests and the screenshots, which switch)."""
    for translator in translators:
        app.removeTranslator(translator)
    QLocale.setDefault(QLocale.system())


def number_text(value: float, decimals: int = 0) -> str:
    """``value`` written for the interface's locale (its decimal point and digit grouping)."""
    return QLocale().toString(float(value), "f", decimals) if decimals else QLocale().toString(round(value))


def duration_text(seconds: float) -> str:
    """A duration as the interface's language writes it: "42 s", "3 min 05 s", "1 h 02 min"."""
    whole = max(0, round(seconds))
    if whole < 60:
        return translate("Durations", "{s} s").format(s=number_text(whole))
    if whole < 3600:
        return translate("Durations", "{m} min {s} s").format(m=number_text(whole // 60), s=f"{whole % 60:02d}")
    return translate("Durations", "{h} h {m} min").format(h=number_text(whole // 3600), m=f"{whole // 60 % 60:02d}")


def size_text(n: int) -> str:
    """A file size for the interface's language: "512 B", "1.5 MB" ("1,5 Mo" in French)."""
    if n < 1024:
        return translate("Sizes", "{n} B").format(n=number_text(n))
    size, unit = n / 1024, translate("Sizes", "{size} KB")
    for bigger in (translate("Sizes", "{size} MB"), translate("Sizes", "{size} GB")):
        if size < 1024:
            break
        size, unit = size / 1024, bigger
    return unit.format(size=number_text(size, 1))


def date_time_text(moment: datetime) -> str:
    """A date and time as the interface's locale writes them, short (digits). Without a locale (C
    or POSIX, as many containers and minimal installs have) ISO 8601: Qt's own C format, "6 12 2026
    14:43", leaves the reader to guess which number is the month."""
    locale = QLocale()
    if locale.language() == QLocale.C:
        return QDateTime(moment).toString("yyyy-MM-dd HH:mm")
    return locale.toString(QDateTime(moment), QLocale.ShortFormat)
