"""The engine's thread: typed messages, the Qt-free controller, the frame pump, its reports."""
