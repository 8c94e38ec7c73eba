"""Models: torch modules mapping agent inputs to distribution parameters and values."""
