"""File names of a model folder in the public Hugging Face layout (the released repositories')."""

from ..families.personaplex import VOICES_ARCHIVE  # noqa: F401 (PersonaPlex's; a model folder's name too)

CONFIG_NAME = "config.json"
MOSHI_NAME = "model.safetensors"
MIMI_NAME = "tokenizer-e351c8d8-checkpoint125.safetensors"
TOKENIZER_NAME = "tokenizer_spm_32k_3.model"
VOICES_DIR = "voices"
