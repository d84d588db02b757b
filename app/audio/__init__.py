"""Sound in and out: PortAudio streams, the real-time rings, resampling, microphone processing."""
