"""Talking to providers: request bodies per format (`requests`), the streaming client
(`client`), readable errors (`errors`), whole-JSON answers (`documents`), recordings (`record`)."""

from app.providers.client import ProviderClient, Timing
from app.providers.errors import ProviderError
from app.providers.record import Recorder, read_recording
from app.providers.requests import ProviderRequest, build_request

__all__ = [
    "ProviderClient",
    "ProviderError",
    "ProviderRequest",
    "Recorder",
    "Timing",
    "build_request",
    "read_recording",
]
