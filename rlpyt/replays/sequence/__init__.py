"""Replays of whole sequences with stored recurrent states (R2D1)."""
