"""Test doubles that speak real HTTP over loopback (never patched httpx)."""
