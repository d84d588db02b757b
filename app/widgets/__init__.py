"""Small painted widgets and GUI-thread helpers that the window and the dialogs share."""
