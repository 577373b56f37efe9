"""Tools the model may call, and the loop that answers them; no UI here.

`registry` (which tools are offered, under which names), `mcp_client` (MCP servers over the
official SDK, an optional extra), `schema_check` (arguments against a tool's schema),
`answers` (one call's result: by hand, from a server, or Triptych's own error), `approval`
(who says a call may run) and `loop` (stream, answer, send back, until the model is done).
Import the modules themselves: this package imports nothing, so the request builder can use
`app.wire.tools` without pulling the loop in.
"""
