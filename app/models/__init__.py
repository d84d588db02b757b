"""Speech models on this machine: presets, downloads, the device they run on."""
