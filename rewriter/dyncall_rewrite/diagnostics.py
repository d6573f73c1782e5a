"""Diagnostics reported by ``check``: one stable code per problem class.

The catalogue below is the reference; docs/rewriter.md repeats it with
examples.  A diagnostic is an *error* (check exits 1), a *warning*
(reported, exit status unchanged unless ``--werror``) or a *note*: a fact
about the binary the user cannot act on, saying what it costs at run time
(never changes the exit status, not even with ``--werror``; ``check -q``
does not print notes).
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"
NOTE = "note"

# code -> (severity, short title)
CODES: dict[str, tuple[str, str]] = {
    # Tables
    "DC001": (ERROR, "bad table version"),
    "DC002": (ERROR, "malformed table section"),
    "DC003": (ERROR, "unknown or reserved entry kind"),
    "DC004": (ERROR, "unknown flags or non-zero reserved field"),
    "DC005": (ERROR, "table offset outside the image"),
    # Trampolines
    "DC010": (ERROR, "trampoline not in an executable segment"),
    "DC011": (ERROR, "misaligned trampoline"),
    "DC012": (ERROR, "trampoline padding is not int3"),
    "DC013": (ERROR, "trampoline slow path does not match the ABI"),
    "DC014": (ERROR, "trampoline patchable branch is not a jmp rel32"),
    "DC015": (ERROR, "trampoline branch pre-patched without RESOLVED"),
    "DC016": (ERROR, "retpoline site with a non-retpoline slow path"),
    "DC017": (ERROR, "ppc64le: trampoline branch is the suffix of a prefixed instruction"),
    # Sites
    "DC020": (ERROR, "site not in an executable segment"),
    "DC021": (ERROR, "site is not the expected instruction"),
    "DC022": (ERROR, "site does not reach its trampoline"),
    "DC023": (ERROR, "compiler-labelled site's rel32 not 4-byte aligned"),
    "DC024": (ERROR, "site not at an instruction boundary"),
    "DC025": (ERROR, "ppc64le: site does not save and restore the TOC (r2) around the call"),
    "DC026": (WARNING, "no call or jump reaches the trampoline"),
    "DC027": (NOTE, "trampoline reached by a branch the runtime cannot patch: one extra jump per call"),
    # Duplicates and overlaps
    "DC030": (ERROR, "duplicate site"),
    "DC031": (ERROR, "trampoline shared by several entries"),
    "DC032": (ERROR, "overlapping sites or trampolines"),
    "DC033": (ERROR, "malformed inline guard entry"),
    # Keys
    "DC040": (ERROR, "key cell not where the loader can relocate it"),
    "DC041": (ERROR, "key not in writable data"),
    "DC042": (ERROR, "key cell without a __dyncall_keys entry"),
    "DC043": (ERROR, "bad key name"),
    "DC044": (ERROR, "inconsistent key flags"),
    # Link-time targets
    "DC050": (ERROR, "link-time target out of branch range"),
    "DC051": (ERROR, "resolved branch does not match the key's link-time value"),
    "DC053": (ERROR, "ppc64le: trampoline branch enters a global entry without r12 (TOC rule)"),
    "DC052": (ERROR, "resolved target not in an executable segment"),
    # Patchable prologues (__patchable_function_entries)
    "DC060": (ERROR, "malformed __patchable_function_entries section"),
    "DC061": (ERROR, "patchable entry not in executable code"),
    "DC062": (ERROR, "misaligned patchable entry"),
    "DC063": (ERROR, "patchable entry does not point at a patchable prologue's NOPs"),
    "DC064": (ERROR, "patchable prologue overlaps a dyncall site or trampoline"),
    "DC065": (NOTE, "zero or duplicate patchable entry: skipped by the runtime"),
    "DC066": (ERROR, "malformed __dyncall_fn_records, or a record that names no patchable entry"),
}


@dataclass(slots=True)
class Diagnostic:
    code: str
    address: int | None
    message: str
    entry: int | None = None  # index in __dyncall_sites / __dyncall_keys
    table: str | None = None
    symbol: str | None = None  # "func+0x12", filled by the symbolizer
    line: str | None = None  # "file.c:12", when DWARF is present

    @property
    def severity(self) -> str:
        return CODES[self.code][0]

    def format(self, path: str) -> str:
        parts = [path]
        if self.address is not None:
            parts.append(f"0x{self.address:x}")
        if self.symbol:
            parts.append(f"<{self.symbol}>")
        if self.line:
            parts.append(self.line)
        where = ": ".join([path, " ".join(parts[1:])]) if len(parts) > 1 else path
        return f"{where}: {self.severity} {self.code}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "address": self.address,
            "symbol": self.symbol,
            "line": self.line,
            "table": self.table,
            "entry": self.entry,
            "message": self.message,
        }
