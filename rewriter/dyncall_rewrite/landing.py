"""Landing pads kept at link time, the rule of the runtime's landing.c.

A site of a module built with IBT (x86-64 ``-fcf-protection=branch``) or BTI
(aarch64) has an indirect call that the hardware checks: its target must
start with a landing pad.  A direct branch is never checked, so ``relax``
resolves such a site to a direct branch only when the target starts with
the pad the indirect call required; any other target keeps the indirect
path (where the hardware still checks it).  The same words as the
runtime's ``arch_is_landing_pad`` (runtime/arch/x86_64.c, aarch64.c).
"""

from __future__ import annotations

import numpy as np

from dyncall_rewrite import abi
from dyncall_rewrite.elf import Image
from dyncall_rewrite.vec import gather

ENDBR64 = 0xFA1E0FF3  # f3 0f 1e fa, little-endian word
BTI_PADS = (
    0xD503245F,  # bti c
    0xD50324DF,  # bti jc
    0xD503233F,  # paciasp (an implicit bti c)
    0xD503237F,  # pacibsp (an implicit bti c)
)
NEEDS_PAD = abi.DYNCALL_SITE_IBT | abi.DYNCALL_SITE_BTI


def pad_ok(flags: int, word: int | None) -> bool:
    """May a site with these flags branch directly to a function whose
    first 4 bytes are ``word`` (None: not in the file)?"""
    if not flags & NEEDS_PAD:
        return True
    if word is None:
        return False
    if flags & abi.DYNCALL_SITE_IBT:
        return word == ENDBR64
    return word in BTI_PADS


def target_ok(img: Image, flags: int, target: int) -> bool:
    """The same, reading the target's first word from the image."""
    if not flags & NEEDS_PAD:
        return True
    b = img.read(target, 4)
    return pad_ok(flags, int.from_bytes(b, "little") if b is not None and len(b) == 4 else None)


def targets_ok(img: Image, flags: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Vector form of :func:`target_ok` over site columns."""
    need = (flags & NEEDS_PAD) != 0
    ok = ~need
    if not need.any():
        return ok
    offs = img.file_offsets(targets, 4)
    good = offs >= 0
    words = np.zeros(len(targets), dtype=np.uint32)
    if good.any():
        b = gather(img.u8, offs[good], 4).astype(np.uint32)
        words[good] = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16) | (b[:, 3] << 24)
    ibt = (flags & abi.DYNCALL_SITE_IBT) != 0
    pad = np.where(ibt, words == ENDBR64, np.isin(words, np.array(BTI_PADS, dtype=np.uint32)))
    return ok | (need & good & pad)
