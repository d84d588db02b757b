"""The `parley` command and its headless sub-commands."""
