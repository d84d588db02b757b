"""The system prompt of the window's conversations with a language model: the persona's role, then
how to speak (``app.chat.instructions``)."""

from app.chat.instructions import SPOKEN, system_prompt


def test_the_persona_s_role_comes_first_and_the_spoken_style_always():
    assert system_prompt("  You are a patient teacher.\n") == f"You are a patient teacher.\n\n{SPOKEN}"
    assert system_prompt("") == system_prompt("   ") == SPOKEN  # the default persona: the style alone
    assert "markdown" in SPOKEN and "spoken" in SPOKEN


def test_the_person_s_language_is_asked_for_and_english_needs_no_word():
    assert system_prompt("", "en") == SPOKEN
    french = system_prompt("You are a guide.", "fr")
    assert french == (f"You are a guide.\n\n{SPOKEN}\n\nAlways answer in French: the person speaks French, and a "
                      "French voice speaks your words.")
    assert system_prompt("", "xx") == SPOKEN  # a language Parley has no voice or name for: as before


def test_the_voice_speaks_the_person_s_language_where_a_model_here_does():
    from app.conversation.read_aloud import chosen_voice
    from app.settings import AppSettings

    installed = {"pocket-tts": ("/e", "english", ["alba", "marius"]),
                 "pocket-tts-french-24l": ("/f", "french_24l", ["alba", "estelle"])}
    mine = AppSettings(read_aloud_model="pocket-tts", read_aloud_voice="marius")
    assert chosen_voice(mine, installed) == ("pocket-tts", "marius")  # Read aloud: the person's choice
    assert chosen_voice(mine, installed, "english") == ("pocket-tts", "marius")
    assert chosen_voice(mine, installed, "french") == ("pocket-tts-french-24l", "estelle")  # its default voice
    assert chosen_voice(mine, installed, "german") == ("pocket-tts", "marius")  # none here speaks it: as chosen
    french = AppSettings(read_aloud_model="pocket-tts-french-24l", read_aloud_voice="alba")
    assert chosen_voice(french, installed, "french") == ("pocket-tts-french-24l", "alba")
