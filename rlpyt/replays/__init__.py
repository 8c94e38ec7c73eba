"""Replay buffers: ring-buffer storage, n-step targets, frame storage, priorities."""
