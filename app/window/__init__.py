"""The main window's widgets: panels, menus, meters, and the desktop app's start."""
