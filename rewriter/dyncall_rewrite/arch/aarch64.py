"""aarch64 backend: not written yet (raises DC905).

To implement: subclass Backend like x86_64.X86_64 -- trampoline
``14000001 aa1203f0 d61f0200`` (docs/abi.md), sites ``bl``/``b`` (4 bytes,
always aligned), padding NOP ``d503201f``, branch range +-128 MiB.
"""

from dyncall_rewrite.arch import EM_AARCH64, NotYetSupported


class AArch64(NotYetSupported):
    name = "aarch64"
    e_machine = EM_AARCH64
    site_size = 4
