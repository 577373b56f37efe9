"""What happens across screens: comparing (start, reopen, continue alone, leave), conversations
(the history screen, reopening, export), choosing the chat's provider or model, and which
provider the app starts on. Each flow takes the app as a `ChatHost` (host.py), never the
concrete app, and imports screens and widgets only: the app imports the flows, not back."""
