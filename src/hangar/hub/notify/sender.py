"""One notification through Apprise (Slack, Telegram, Matrix, e-mail, JSON webhooks, …).

Apprise is imported on first use: only a hub that sends notifications pays for it. The
answer is ``None`` when the service took the message, else one line saying why not (from
Apprise's own log, never the target's URL with its secrets).
"""

from __future__ import annotations

import logging


def send(url: str, title: str, body: str) -> str | None:
    """Deliver ``title``/``body`` to the Apprise ``url``; ``None`` on success."""
    import apprise

    notifier = apprise.Apprise()
    if not notifier.add(url):
        return "not a notification URL Apprise understands"
    with apprise.LogCapture(level=logging.WARNING) as captured:  # type: ignore[no-untyped-call]
        ok = notifier.notify(title=title, body=body or title)
        log_text = captured.getvalue() if hasattr(captured, "getvalue") else ""
    if ok:
        return None
    lines = [line.split(" - ", 2)[-1] for line in str(log_text).splitlines() if line.strip()]
    return (lines[-1] if lines else "the notification service did not accept it")[:500]
