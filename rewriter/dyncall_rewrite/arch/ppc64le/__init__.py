"""ppc64le (ELFv2): ``enc`` (the encodings: ABI trampoline words, TOC
stubs, branch forms), ``backend`` (the object-path backend), ``columns``
(its column hooks)."""

from dyncall_rewrite.arch.ppc64le.backend import PPC64LE

__all__ = ["PPC64LE"]
