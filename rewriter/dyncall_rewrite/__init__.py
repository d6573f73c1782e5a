"""dyncall-rewrite: the post-link tool that validates, relaxes and lists the
``__dyncall_sites`` tables of linked dyncall binaries (see docs/rewriter.md).

Reading goes through LIEF (headers, sections, segments, symbols, relocations)
and capstone (instructions); writing is same-size writes at file offsets of a
temporary copy followed by an atomic rename -- LIEF's writer is never used.
"""

__version__ = "0.1.0"

import os as _os

# numpy (the columnar fast path) loads OpenBLAS, which starts a thread per
# CPU at import; nothing here uses BLAS, and those threads cost ~0.07 s of
# CPU per command.
_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
