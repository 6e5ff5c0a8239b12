"""Reporters: the result store as a tidy frame, and paper tables rebuilt side by side."""
