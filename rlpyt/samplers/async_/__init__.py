"""Asynchronous samplers: sampling in its own process, into a double buffer, for AsyncRl."""
