"""Where the OAuth flow keeps credentials: one record per authorization server,
keyed by its issuer (2026-07-28 basic/authorization/client-registration.mdx
"Authorization Server Binding").

`MemoryStore` (the default) forgets them with the process; `FileStore` keeps one JSON
file per issuer in a directory, readable by the user alone (0600 files in a 0700
directory: 2025-11-25 basic/authorization.mdx "Token Theft": "Clients ... MUST
implement secure token storage").

Both also keep pending authorizations (`PendingStore`), by their `state`, for
`OAuth.start` and `OAuth.finish`: an authorization begun in one process and
finished in another. Taking one removes it: a redirect is used once.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Protocol

import anyio
import msgspec

from mcp_core.auth.actions import Credentials, PendingAuthorization

__all__ = ["FileStore", "MemoryStore", "PendingStore", "TokenStore"]


class TokenStore(Protocol):
    """Credentials by issuer."""

    async def load(self, issuer: str) -> Credentials | None:
        """What is stored for ``issuer``, if anything."""
        ...

    async def save(self, credentials: Credentials) -> None:
        """Store ``credentials`` for their issuer, replacing what was there."""
        ...


class PendingStore(Protocol):
    """Pending authorizations by their ``state``."""

    async def save_pending(self, pending: PendingAuthorization) -> None:
        """Keep ``pending`` until `take_pending` takes it."""
        ...

    async def take_pending(self, state: str) -> PendingAuthorization | None:
        """Remove and return the pending authorization sent with ``state``."""
        ...


class MemoryStore:
    """Credentials in memory, for the life of the process."""

    def __init__(self) -> None:
        self._records: dict[str, bytes] = {}
        self._pending: dict[str, PendingAuthorization] = {}

    async def load(self, issuer: str) -> Credentials | None:
        data = self._records.get(issuer)
        return None if data is None else msgspec.json.decode(data, type=Credentials)

    async def save(self, credentials: Credentials) -> None:
        # Stored encoded: the flow's record and the stored one never alias.
        self._records[credentials.issuer] = msgspec.json.encode(credentials)

    async def save_pending(self, pending: PendingAuthorization) -> None:
        self._pending[pending.state] = pending

    async def take_pending(self, state: str) -> PendingAuthorization | None:
        return self._pending.pop(state, None)


class FileStore:
    """Credentials in ``directory``, one file per issuer, named by a hash of it.

    A file that cannot be read, or that holds another issuer's record, counts as
    absent.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory).expanduser()

    def path_for(self, issuer: str, prefix: str = "") -> Path:
        name = hashlib.sha256(issuer.encode()).hexdigest()[:32]
        return self.directory / f"{prefix}{name}.json"

    async def load(self, issuer: str) -> Credentials | None:
        return await anyio.to_thread.run_sync(self._load, issuer)

    async def save(self, credentials: Credentials) -> None:
        await anyio.to_thread.run_sync(self._save, credentials)

    async def save_pending(self, pending: PendingAuthorization) -> None:
        path = self.path_for(pending.state, "pending-")
        await anyio.to_thread.run_sync(self._write, path, msgspec.json.encode(pending))

    async def take_pending(self, state: str) -> PendingAuthorization | None:
        return await anyio.to_thread.run_sync(self._take_pending, state)

    def _take_pending(self, state: str) -> PendingAuthorization | None:
        path = self.path_for(state, "pending-")
        try:
            # Renamed away first: of two processes finishing with the same
            # redirect, one gets the pending authorization.
            taken = path.with_suffix(f".{os.getpid()}.taken")
            os.replace(path, taken)
        except OSError:
            return None
        try:
            record = msgspec.json.decode(taken.read_bytes(), type=PendingAuthorization)
        except (OSError, msgspec.DecodeError):
            return None
        finally:
            taken.unlink(missing_ok=True)
        return record if record.state == state else None

    def _load(self, issuer: str) -> Credentials | None:
        try:
            data = self.path_for(issuer).read_bytes()
            record = msgspec.json.decode(data, type=Credentials)
        except (OSError, msgspec.DecodeError):
            return None
        return record if record.issuer == issuer else None

    def _save(self, credentials: Credentials) -> None:
        self._write(self.path_for(credentials.issuer), msgspec.json.encode(credentials))

    def _write(self, path: Path, data: bytes) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
