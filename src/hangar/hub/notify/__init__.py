"""Runtime-task notifications (RW-324–RW-332): final replies delivered through Apprise.

:mod:`.store` keeps the switch, targets, subscriptions and deliveries; :mod:`.service` turns a
``runtime.tasks.updated`` into deliveries and answers ``/notify`` commands (:mod:`.commands`);
:mod:`.worker` sends them (:mod:`.sender`, Apprise) with retries and backoff, never on the
path of a reply.
"""
