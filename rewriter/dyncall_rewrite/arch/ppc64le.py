"""ppc64le backend: not written yet (raises DC905).

To implement: subclass Backend like x86_64.X86_64 -- trampoline
``48000004 7d6903a6 7d6c5b78 4e800420`` (docs/abi.md), sites ``bl`` + TOC
restore, padding NOP ``60000000``, branch range +-32 MiB, never prefixed
instructions.  Big-endian ppc64 is rejected earlier (DC903).
"""

from dyncall_rewrite.arch import EM_PPC64, NotYetSupported


class PPC64LE(NotYetSupported):
    name = "ppc64le"
    e_machine = EM_PPC64
    site_size = 4
