"""The newest bytes of a terminal's output, addressed by stream offset."""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_CAPACITY = 256 * 1024


@dataclass(eq=False)
class OutputRing:
    """Keeps the last ``capacity`` bytes; ``start`` is the offset of the oldest one kept.

    Not thread-safe on its own: the terminal session holds its lock around every call.
    """

    capacity: int = DEFAULT_CAPACITY
    start: int = 0
    _buffer: bytearray = field(default_factory=bytearray)

    @property
    def end(self) -> int:
        """The offset the next byte gets (bytes produced so far)."""
        return self.start + len(self._buffer)

    def append(self, data: bytes) -> int:
        """Keep ``data``; returns the offset of its first byte."""
        offset = self.end
        self._buffer += data
        excess = len(self._buffer) - self.capacity
        if excess > 0:
            del self._buffer[:excess]
            self.start += excess
        return offset

    def since(self, offset: int) -> tuple[int, bytes, bool]:
        """``(first offset, bytes, truncated)``: what is kept from ``offset`` on; ``truncated``
        when some of the bytes asked for are no longer kept."""
        if offset >= self.end:
            return self.end, b"", False
        first = max(offset, self.start)
        return first, bytes(self._buffer[first - self.start :]), first > offset
