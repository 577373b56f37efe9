"""The commands that run without a screen: `triptych ask` (alone and `--compare`), `replay` and
`providers`. They print to stdout, exit with a code scripts can test, and never import Textual.
"""
