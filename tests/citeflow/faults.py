"""A TCP proxy in front of a gateway that drops the connection of the first `drops`
requests after the gateway has answered them (the client never sees the response)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from services.broker import free_port


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, asyncio.CancelledError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    with contextlib.suppress(Exception):
        writer.close()


async def _drain() -> None:
    """Let the cancelled connection handlers finish."""
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    await asyncio.gather(*others, return_exceptions=True)


class DroppingProxy:
    def __init__(self, upstream_port: int, drops: int) -> None:
        self.upstream_port = upstream_port
        self.drops = drops
        self.dropped = 0
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        if self.dropped < self.drops:
            self.dropped += 1
            forward = asyncio.create_task(_pipe(reader, up_writer))
            await up_reader.read(1)  # the gateway has answered: lose that answer
            forward.cancel()
            writer.transport.abort()
            up_writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    @contextlib.contextmanager
    def running(self) -> Iterator[DroppingProxy]:
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def main() -> None:
            server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
            ready.set()
            async with server:
                await server.serve_forever()

        def run() -> None:
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(main())
            loop.run_until_complete(_drain())
            loop.close()

        def cancel_all() -> None:
            for task in asyncio.all_tasks(loop):
                task.cancel()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        ready.wait(10)
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(cancel_all)
            thread.join(10)
