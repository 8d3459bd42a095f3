"""Where the OAuth flow keeps credentials: one record per authorization server,
keyed by its issuer (2026-07-28 basic/authorization/client-registration.mdx
"Authorization Server Binding").

`MemoryStore` (the default) forgets them with the process; `FileStore` keeps one JSON
file per issuer in a directory, readable by the user alone (0600 files in a 0700
directory: 2025-11-25 basic/authorization.mdx "Token Theft": "Clients ... MUST
implement secure token storage").
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Protocol

import anyio
import msgspec

from mcp_core.auth.actions import Credentials

__all__ = ["FileStore", "MemoryStore", "TokenStore"]


class TokenStore(Protocol):
    """Credentials by issuer."""

    async def load(self, issuer: str) -> Credentials | None:
        """What is stored for ``issuer``, if anything."""
        ...

    async def save(self, credentials: Credentials) -> None:
        """Store ``credentials`` for their issuer, replacing what was there."""
        ...


class MemoryStore:
    """Credentials in memory, for the life of the process."""

    def __init__(self) -> None:
        self._records: dict[str, bytes] = {}

    async def load(self, issuer: str) -> Credentials | None:
        data = self._records.get(issuer)
        return None if data is None else msgspec.json.decode(data, type=Credentials)

    async def save(self, credentials: Credentials) -> None:
        # Stored encoded: the flow's record and the stored one never alias.
        self._records[credentials.issuer] = msgspec.json.encode(credentials)


class FileStore:
    """Credentials in ``directory``, one file per issuer, named by a hash of it.

    A file that cannot be read, or that holds another issuer's record, counts as
    absent.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory).expanduser()

    def path_for(self, issuer: str) -> Path:
        name = hashlib.sha256(issuer.encode()).hexdigest()[:32]
        return self.directory / f"{name}.json"

    async def load(self, issuer: str) -> Credentials | None:
        return await anyio.to_thread.run_sync(self._load, issuer)

    async def save(self, credentials: Credentials) -> None:
        await anyio.to_thread.run_sync(self._save, credentials)

    def _load(self, issuer: str) -> Credentials | None:
        try:
            data = self.path_for(issuer).read_bytes()
            record = msgspec.json.decode(data, type=Credentials)
        except (OSError, msgspec.DecodeError):
            return None
        return record if record.issuer == issuer else None

    def _save(self, credentials: Credentials) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = self.path_for(credentials.issuer)
        temporary = path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(msgspec.json.encode(credentials))
        os.replace(temporary, path)
