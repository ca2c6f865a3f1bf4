"""hangar's public testing kit: run the real agent CLIs offline against a scripted model.

- :mod:`hangar.testing.scenarios` — the scenario format (an ordered script of model turns).
- :mod:`hangar.testing.fake_model` — the fake model server (OpenAI Responses, Chat
  Completions, Anthropic Messages; all streamed).
- :mod:`hangar.testing.sandbox` — a loopback-only network namespace with a DNS sink, in which
  the fake server and the CLIs run.
- :mod:`hangar.testing.agent_runs` — ``run_agent(...)`` and the long-lived process API.
- :mod:`hangar.testing.pytest_plugin` — pytest fixtures over all of the above.
"""
