"""x86-64: ``enc`` (the encodings: ABI trampoline and site bytes, branch
forms), ``backend`` (the object-path backend), ``columns`` (its column
hooks)."""

from dyncall_rewrite.arch.x86_64.backend import X86_64

__all__ = ["X86_64"]
