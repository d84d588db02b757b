"""Pocket TTS (kyutai): text to speech on the CPU, with its state as data.

A FlowLM streaming transformer reads text tokens (after a voice prompt) and writes one 32-dim
latent per 80 ms frame through a one-step LSD flow head, with an end-of-speech head; a Mimi-style
codec decodes each latent to 1920 samples at 24 kHz. ``config`` says which models the code covers,
``flow_lm`` and ``codec`` are the modules, ``text`` cuts text as the package does, ``loading``
reads the released hub layout, ``voices`` the voice states and ``speech`` generates.
"""
