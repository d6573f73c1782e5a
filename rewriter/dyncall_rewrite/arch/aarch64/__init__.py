"""aarch64: ``enc`` (the encodings: ABI trampoline words, branch forms),
``backend`` (the object-path backend), ``columns`` (its column hooks)."""

from dyncall_rewrite.arch.aarch64.backend import AArch64

__all__ = ["AArch64"]
