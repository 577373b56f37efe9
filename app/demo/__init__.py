"""The offline demo: a loopback server streaming sample answers in all three wire formats.

`start_demo_server()` returns a running `DemoServer`; the words that pick a sample answer are in
`DEMO_WORDS` (see app/demo/samples.py).
"""

from app.demo.samples import DEMO_LABEL, DEMO_WORDS
from app.demo.server import DEMO_APIS, DemoServer, Pacing, is_demo, start_demo_server

__all__ = [
    "DEMO_APIS",
    "DEMO_LABEL",
    "DEMO_WORDS",
    "DemoServer",
    "Pacing",
    "is_demo",
    "start_demo_server",
]
