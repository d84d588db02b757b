"""A conversation with the person's own language model, without widgets: the OpenAI-compatible
chat-completions client (``client``), the cut of its streamed text into clauses to speak
(``clauses``) and one spoken turn, speech to text to speech (``cascade``)."""
