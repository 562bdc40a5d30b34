"""Icons, the desktop entry and other files the application ships (package data)."""
