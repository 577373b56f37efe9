"""Talking to providers: request bodies per format (`requests`), the streaming client
(`client`), readable errors (`errors`), whole-JSON answers (`documents`), recordings (`record`).

Nothing is imported here: importing a light module of this package (`timing`, `kept_stream`)
must not load the client and httpx, which the app's first frame does not need.
"""
