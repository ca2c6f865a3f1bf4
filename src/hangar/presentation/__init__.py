"""How transcript blocks read to a person: tool calls as what happened, diffs, paths.

Shared by the web UI and the exports (Markdown, self-contained HTML); plain data in, plain
data out, no web stack.
"""
