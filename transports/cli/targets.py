"""Find the Server a command line names: ``file.py``, ``file.py:obj`` or ``module:obj``.

``mcp-core serve`` and ``mcp-core config`` take a TARGET:

    app.py              the one Server at the top level of app.py
    app.py:server       the attribute ``server`` of app.py (dotted paths work)
    package.module:app  an importable module and an attribute of it
    package.module      the one Server at the top level of that module

Without an attribute, the module must hold exactly one `mcp_core.Server` at its top level
(several names for the same object count once), or, when it holds several, exactly one
of them must be called ``server``, ``app`` or ``mcp``.

A file is loaded the way ``python app.py`` would run it, with its directory first on
``sys.path`` so its neighbours import, but under a module name of its own rather than
``__main__``: its ``if __name__ == "__main__":`` block (which typically starts serving
on stdio) does not run. A module is imported with the current directory first on
``sys.path``, as ``python -m`` does.

Problems with the target itself (no such file or module, no Server, several) raise
`TargetError`; whatever the loaded code raises propagates unchanged, and
`describe_failure` says it in a line (``file:line: error``) and the source line
with its caret, the way a person fixes it, without the import machinery's frames.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Final

from mcp_core import Server

__all__ = [
    "PREFERRED_NAMES",
    "Target",
    "TargetError",
    "describe_failure",
    "is_target",
    "load_target",
    "target_file",
]

PREFERRED_NAMES: Final = ("server", "app", "mcp")
"""Attribute names that settle which Server to use when a module holds several."""


class TargetError(Exception):
    """The target names no Server; the message says why, in the user's terms."""


@dataclass(frozen=True)
class Target:
    """A loaded target.

    Attributes:
        server: the Server it names.
        spec: the target in a form that works from any directory: the absolute
            path of a file (with its ``:attribute``), or ``module:attribute`` as given.
        pythonpath: for a module found in the current directory, that directory
            (a process started elsewhere needs it on PYTHONPATH); otherwise None.
    """

    server: Server
    spec: str
    pythonpath: str | None = None


def _split(target: str) -> tuple[str, str | None]:
    location, colon, attribute = target.rpartition(":")
    if not colon or "/" in attribute or "\\" in attribute:
        # No attribute; a colon inside a path (C:\...) is not a separator.
        return target, None
    if not location:
        raise TargetError(f"{target!r} names no file or module before the ':'")
    if not all(part.isidentifier() for part in attribute.split(".")):
        raise TargetError(f"{attribute!r} in {target!r} is not an attribute name")
    return location, attribute


def _is_file(location: str) -> bool:
    return location.endswith(".py") or "/" in location or os.sep in location


def is_target(text: str) -> bool:
    """Whether ``text`` reads as a TARGET rather than a command line to run.

    A TARGET is one word: ``file.py``, ``file.py:obj`` or ``module:obj`` (an existing
    ``.py`` file whose name has spaces counts too). ``module`` alone, without an
    attribute, reads as a command (``my-server``), as do ``python app.py`` and
    anything else with a space.
    """
    if text.endswith(".py") and Path(text).is_file():
        return True
    if not text or any(c.isspace() for c in text):
        return False
    try:
        location, attribute = _split(text)
    except TargetError:
        return False
    if location.endswith(".py"):
        return True
    return attribute is not None and all(part.isidentifier() for part in location.split("."))


def target_file(target: str) -> str | None:
    """The file a TARGET names, or None for a module."""
    try:
        location, _ = _split(target)
    except TargetError:
        return None
    return location if _is_file(location) else None


def _module_name_for(path: Path) -> str:
    # Unique per file, so two targets loaded into one process do not replace each
    # other in sys.modules (classes find their module there to resolve annotations).
    stem = re.sub(r"\W", "_", path.stem)
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:8]
    return f"__mcp_target_{stem}_{digest}"


def _put_first_on_path(directory: str) -> None:
    if directory in sys.path:
        sys.path.remove(directory)
    sys.path.insert(0, directory)


def _load_file(location: str) -> tuple[ModuleType, Path]:
    path = Path(location).resolve()
    if not path.is_file():
        what = "a directory" if path.is_dir() else "no such file"
        raise TargetError(f"{location}: {what}")
    name = _module_name_for(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"{location}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    _put_first_on_path(str(path.parent))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module, path


def _import_module(location: str) -> ModuleType:
    if not all(part.isidentifier() for part in location.split(".")):
        raise TargetError(
            f"{location!r} is neither a Python file (name.py) nor a module name (package.module)"
        )
    _put_first_on_path(os.getcwd())
    try:
        return importlib.import_module(location)
    except ModuleNotFoundError as exc:
        # Only the target itself missing is our error; a missing import inside it is
        # the module's own failure, reported with its traceback.
        if exc.name is None or not (location == exc.name or location.startswith(exc.name + ".")):
            raise
        raise TargetError(
            f"no module named {exc.name!r} (looked in the current directory too)"
        ) from None


def _describe(value: object) -> str:
    kind = type(value)
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def _attribute(module: ModuleType, attribute: str, where: str) -> Server:
    value: object = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise TargetError(f"{where} has no attribute {attribute!r}") from None
    if not isinstance(value, Server):
        raise TargetError(f"{where}:{attribute} is a {_describe(value)}, not an mcp_core.Server")
    return value


def _the_server(module: ModuleType, where: str) -> Server:
    namespace = vars(module)
    found: dict[int, tuple[Server, list[str]]] = {}  # aliases count once
    for name, value in namespace.items():
        if isinstance(value, Server):
            found.setdefault(id(value), (value, []))[1].append(name)
    if len(found) == 1:
        ((server, _),) = found.values()
        return server
    if found:
        preferred = {id(namespace.get(name)) for name in PREFERRED_NAMES} & found.keys()
        if len(preferred) == 1:
            return found[preferred.pop()][0]
        listed = [names[0] for _, names in found.values()]
        raise TargetError(
            f"{where} holds several servers ({', '.join(listed)}); "
            f"name one, as in {where}:{listed[0]}"
        )
    for name in PREFERRED_NAMES:
        if name in namespace:
            value = namespace[name]
            raise TargetError(f"{where}:{name} is a {_describe(value)}, not an mcp_core.Server")
    raise TargetError(
        f"no mcp_core.Server at the top level of {where}; create one there "
        f"(server = Server(...)) or name the attribute that holds it, as in {where}:name"
    )


def load_target(target: str) -> Target:
    """Load ``target`` and return the Server it names.

    Args:
        target: ``file.py``, ``file.py:obj``, ``module`` or ``module:obj``.

    Raises:
        TargetError: no such file or module, no such attribute, not a Server, no
            Server or several. The module stays imported if it was.
        Exception: whatever loading the file or module raised.
    """
    location, attribute = _split(target)
    suffix = "" if attribute is None else f":{attribute}"
    pythonpath: str | None = None
    if _is_file(location):
        module, path = _load_file(location)
        spec = f"{path}{suffix}"
    else:
        module = _import_module(location)
        spec = target
        origin = getattr(module, "__file__", None)
        cwd = Path.cwd().resolve()
        if origin is not None and Path(origin).resolve().is_relative_to(cwd):
            pythonpath = str(cwd)
    if attribute is not None:
        server = _attribute(module, attribute, location)
    else:
        server = _the_server(module, location)
    return Target(server=server, spec=spec, pythonpath=pythonpath)


_OURS: Final = str(Path(__file__).resolve().parent.parent)


def _shown_path(filename: str) -> str:
    path = Path(filename)
    if path.is_absolute() and path.is_relative_to(Path.cwd()):
        return str(path.relative_to(Path.cwd()))
    return filename


def describe_failure(exc: BaseException) -> str:
    """What loading a target raised, for people: ``file:line: Error: message``,
    then the source line and a caret under the fault when there is one.

    The place is the innermost frame of the user's code: a SyntaxError's own
    position, else the last frame outside the import machinery and this package.
    """
    if isinstance(exc, SyntaxError) and exc.filename:
        # format_exception_only gives the File line, the source, the caret, the error.
        lines = traceback.format_exception_only(exc)
        source = [line.rstrip("\n") for line in lines[1:-1] for line in line.splitlines()]
        head = f"{_shown_path(exc.filename)}:{exc.lineno}: {type(exc).__name__}: {exc.msg}"
        return "\n".join([head, *source])
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if not frame.filename.startswith(("<frozen", _OURS))
    ]
    message = traceback.format_exception_only(exc)[-1].strip()
    if not frames:
        return message
    frame = frames[-1]
    head = f"{_shown_path(frame.filename)}:{frame.lineno}: {message}"
    shown = traceback.format_list([frame])[0].splitlines()[1:]
    return "\n".join([head, *shown])
