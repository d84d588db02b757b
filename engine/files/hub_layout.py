"""File names of a model folder in the public Hugging Face layout (the released repositories')."""

CONFIG_NAME = "config.json"
MOSHI_NAME = "model.safetensors"
MIMI_NAME = "tokenizer-e351c8d8-checkpoint125.safetensors"
TOKENIZER_NAME = "tokenizer_spm_32k_3.model"
VOICES_ARCHIVE = "voices.tgz"
VOICES_DIR = "voices"
