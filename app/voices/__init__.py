"""Voices and personas: the library of voices, recording one, the dialogs and the command."""
