"""Crash journals: one writer per journal, the recovery offer, what a save covers."""
