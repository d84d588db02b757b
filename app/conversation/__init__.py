"""The conversation as the window sees it: the view-model, its turns, status and replay."""
