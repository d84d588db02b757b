"""MOSS-TTS-Realtime (OpenMOSS): so far its codec's decoder, MOSS-Audio-Tokenizer, streaming.

``codec_config`` reads the released ``config.json``, ``codec_quantizer`` and ``codec`` are the
decoder (codes -> 24 kHz PCM, ring caches as explicit state), ``codec_loading`` reads the released
files unchanged. docs/moss-tts-realtime.md describes the model and the reference's streaming.
"""
