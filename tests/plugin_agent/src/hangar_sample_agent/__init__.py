"""A sample agent plugin: "Notebook", a made-up CLI that writes one JSON line per message to
``$NOTEBOOK_HOME/sessions/<id>.jsonl`` (``{"role", "text", "cwd", "time"}``)."""

from hangar.agents.homes import HomeSpec
from hangar.agents.registry import Agent

AGENT = Agent(
    runtime="notebook",
    display_name="Notebook",
    badge="Nb",
    home=HomeSpec("NOTEBOOK_HOME", (".notebook",)),
    store="hangar_sample_agent.store:NotebookStore",
    executables=("notebook",),
)
