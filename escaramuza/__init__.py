"""escaramuza: a combat AI and tactics sandbox for tabletop role-playing games."""

__version__ = "0.1.0"
