"""The offline demo: a loopback server streaming sample answers in all three wire formats.

`server.start_demo_server()` returns a running `DemoServer`; the words that pick a sample answer
are in `samples.DEMO_WORDS`; `names.is_demo` tells a demo provider by its name. Nothing is
imported here: the app asks `is_demo` at start-up without loading the server.
"""
