"""Every game module; importing this package registers them all (nothing else lists games)."""

from engine.games import counterpoint, ninety_nine, nominations, sixty_six

__all__ = ["counterpoint", "ninety_nine", "nominations", "sixty_six"]
