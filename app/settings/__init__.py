"""Where the program reads its settings and keeps its secrets: the config file and its
checks, the directories, the remembered state, keys, and what counts as a secret to scrub.

Headless: nothing here imports Textual or Rich.
"""
