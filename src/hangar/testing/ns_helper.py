"""The process that owns a sandbox's namespaces: ``python -m hangar.testing.ns_helper``.

:class:`hangar.testing.sandbox.Sandbox` starts it under ``unshare --net --mount
--propagation private``. Inside the fresh namespaces it:

1. brings ``lo`` up (the only interface there is, so nothing can leave loopback);
2. bind-mounts a private ``resolv.conf`` (``nameserver 127.0.0.1``) over ``/etc/resolv.conf``
   and any requested ``--bind SRC:DST`` pairs (e.g. a temp dir over ``/home``);
3. starts the DNS sink on ``127.0.0.1:53`` and the fake model server on ``127.0.0.1:<port>``;
4. prints one JSON line ``{"port", "pid"}`` and then serves commands, one JSON object per
   line on stdin, each answered by one JSON line on stdout:
   ``{"op": "load", "path": <scenario file>, "restart_ids"?: bool}`` → ``{"ok": true}``.

It exits when stdin reaches EOF, so a parent that dies never leaves it behind; before
exiting it SIGKILLs any process still in its network namespace. CLIs join the
namespaces with ``nsenter --target <pid> --net --mount``.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path

from hangar.testing.dns_sink import DnsSink
from hangar.testing.fake_model import FakeModelServer
from hangar.testing.scenarios import load_scenario

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
RESOLV_CONF = "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"


def bring_loopback_up() -> None:
    """Set IFF_UP on ``lo`` (what ``ip link set lo up`` does) without needing iproute2."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))


def bind_mount(source: Path, target: Path) -> None:
    subprocess.run(["mount", "--bind", str(source), str(target)], check=True)


def end_namespace_processes() -> None:
    """SIGKILL every other process in this network namespace, by PID.

    Normally :meth:`Sandbox.close` has already done so; this covers a parent that died
    (stdin EOF) and left CLIs behind."""
    own = Path("/proc/self/ns/net").readlink()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if (entry / "ns" / "net").readlink() == own:
                os.kill(int(entry.name), signal.SIGKILL)
        except OSError:
            continue  # gone meanwhile, or not ours to read


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--state", type=Path, required=True, help="sandbox state directory")
    parser.add_argument("--bind", action="append", default=[], help="SRC:DST bind mount")
    args = parser.parse_args(argv)
    state: Path = args.state

    # Belt and braces: unshare already made propagation private; a mount made here must
    # never show up outside the namespace.
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)
    bring_loopback_up()
    resolv = state / "resolv.conf"
    resolv.write_text(RESOLV_CONF, encoding="utf-8")
    bind_mount(resolv, Path("/etc/resolv.conf"))
    for pair in args.bind:
        source, _, target = pair.partition(":")
        bind_mount(Path(source), Path(target))

    dns = DnsSink(state / "dns.jsonl")
    dns.start()
    server = FakeModelServer(state / "requests.jsonl")
    server.start()
    print(json.dumps({"port": server.port, "pid": os.getpid()}), flush=True)

    for line in sys.stdin:
        command = json.loads(line)
        if command.get("op") == "load":
            server.load(
                load_scenario(Path(command["path"])), bool(command.get("restart_ids", False))
            )
            reply: dict[str, object] = {"ok": True}
        else:
            reply = {"ok": False, "error": f"unknown op {command.get('op')!r}"}
        print(json.dumps(reply), flush=True)

    end_namespace_processes()
    server.close()
    dns.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
