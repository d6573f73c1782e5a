"""The one exception hierarchy of dyncall-rewrite.

Every failure the tool can meet is a RewriteError carrying a stable code
(``DC9xx``, listed in docs/rewriter.md).  Library code raises; only cli.py
prints (``dyncall-rewrite: error: <message>``) and chooses the exit status.
Problems found *inside* a well-formed binary by ``check`` are not exceptions
but diagnostics (``DC0xx``, see diagnostics.py).
"""

from __future__ import annotations


class RewriteError(Exception):
    """Base of every error of the tool; ``code`` is stable."""

    code = "DC900"

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{where}{self.code}: {self.message}"


class InputIOError(RewriteError):
    """The input cannot be opened or read."""

    code = "DC900"


class NotELFError(RewriteError):
    """Not an ELF file, or one LIEF cannot parse."""

    code = "DC901"


class TruncatedError(RewriteError):
    """Headers describe contents beyond the end of the file."""

    code = "DC902"


class UnsupportedFormatError(RewriteError):
    """ELF class or byte order the tool does not handle (32-bit, big endian)."""

    code = "DC903"


class UnknownMachineError(RewriteError):
    """An e_machine dyncall has no backend for at all."""

    code = "DC904"


class CheckFailedError(RewriteError):
    """``relax`` refuses an input that does not pass ``check``."""

    code = "DC906"


class OutputError(RewriteError):
    """The output cannot be written (the input is left untouched)."""

    code = "DC907"


class InternalError(RewriteError):
    """An invariant of the tool itself failed (e.g. relax produced an output
    that does not pass check); the output is not written."""

    code = "DC908"


class NoSectionHeadersError(RewriteError):
    """No section headers: the tables cannot be located (the runtime finds
    them through __start_/__stop_ symbols, which are gone too)."""

    code = "DC909"
