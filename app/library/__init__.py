"""The saved conversations: their listing, the library's item model and panel."""
