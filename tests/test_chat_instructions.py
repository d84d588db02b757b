"""The system prompt of the window's conversations with a language model: the persona's role, then
how to speak (``app.chat.instructions``)."""

from app.chat.instructions import SPOKEN, system_prompt


def test_the_persona_s_role_comes_first_and_the_spoken_style_always():
    assert system_prompt("  You are a patient teacher.\n") == f"You are a patient teacher.\n\n{SPOKEN}"
    assert system_prompt("") == system_prompt("   ") == SPOKEN  # the default persona: the style alone
    assert "markdown" in SPOKEN and "spoken" in SPOKEN
