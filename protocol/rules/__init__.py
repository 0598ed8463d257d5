"""Rules engines."""
