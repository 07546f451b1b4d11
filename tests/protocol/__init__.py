"""Tests of the engine protocol (arena.protocol)."""
