"""The rule engine of ``check``: every DCxxx rule is one ``Rule``, written
once, with both of its forms side by side:

- ``entry``: the per-entry form, run by the object path (check.py) on one
  subject (a site entry's SiteInfo, a key entry, ...); it appends the
  rule's diagnostics and returns False when the subject must not be
  examined further (the later rules would only repeat the problem);
- ``columns``: the vectorised form, run by the columnar proof (columns.py)
  over the whole table: a boolean array (or bool) that is True where the
  rule holds.  The proof succeeds only when every rule holds everywhere;
  it then stands for "the entry form would report nothing".

Rules are grouped by ``stage`` (the order in which the facts they need
become known); within a stage they run in registration order.  The rule
definitions are in entry_rules.py (the tables and the key table) and
site_rules.py (site entries: fields, trampolines, keys, branches, sites,
callers, overlaps), each a RuleSet.  Rules whose problems are
found by an arch backend (the exact trampoline bytes, ppc64le's TOC rules)
name every code the backend may report in ``codes``.

``tests/test_layers.py`` fails when a diagnostic code of the catalogue
(diagnostics.CODES) has no rule, or a rule a code the catalogue lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dyncall_rewrite.diagnostics import CODES

# Stages, in order.  ``table``: a table section; ``key-entry`` and
# ``key-value``: one key entry (before and after it is registered);
# ``site-fields`` .. ``site``: one site entry; ``callers`` and ``overlap``:
# all site entries at once; ``prologue-table`` and ``prologue``: the
# __patchable_function_entries section and one record.  The caller decides what a stage that says
# "stop" (False) means for the later stages.
STAGES = (
    "table",
    "key-entry",
    "key-value",
    "site-fields",
    "trampoline",
    "site-key",
    "branch",
    "site",
    "callers",
    "overlap",
    "prologue-table",
    "prologue",
    "fn-record-table",
    "fn-record",
)


@dataclass(frozen=True)
class Rule:
    codes: tuple[str, ...]  # every code the rule reports; codes[0] names it
    stage: str
    entry: Callable[..., bool | None] | None  # per-entry form: False = stop examining the subject
    columns: Callable[[Any], Any] | None  # vectorised form: True where the rule holds

    @property
    def code(self) -> str:
        return self.codes[0]

    @property
    def title(self) -> str:
        return CODES[self.code][1]


class RuleSet:
    """The rules of one table (entry_rules.RULES, site_rules.RULES), by
    stage, in registration order."""

    def __init__(self) -> None:
        self.by_stage: dict[str, list[Rule]] = {}
        self._entry_fns: dict[str, tuple[Callable[..., bool | None], ...]] = {}

    def rule(
        self, *codes: str, stage: str, columns: Callable[[Any], Any] | None = None
    ) -> Callable[[Callable[..., bool | None]], Callable[..., bool | None]]:
        """Decorator registering ``fn`` as the entry form of the rule
        ``codes`` (``columns``: its vectorised form)."""

        def register(fn: Callable[..., bool | None]) -> Callable[..., bool | None]:
            self.add(Rule(tuple(codes), stage, fn, columns))
            return fn

        return register

    def add(self, r: Rule) -> None:
        if r.stage not in STAGES:
            raise ValueError(f"unknown stage {r.stage!r} of {r.code}")
        for c in r.codes:
            if c not in CODES:
                raise ValueError(f"rule code {c} is not in the diagnostics catalogue")
        self.by_stage.setdefault(r.stage, []).append(r)
        self._entry_fns[r.stage] = tuple(x.entry for x in self.by_stage[r.stage] if x.entry is not None)

    def rules(self) -> list[Rule]:
        return [r for st in STAGES for r in self.by_stage.get(st, [])]

    def codes(self) -> set[str]:
        """Every code some rule reports."""
        return {c for r in self.rules() for c in r.codes}

    def diagnose(self, stage: str, ctx: Any, subject: Any) -> bool:
        """Run the entry form of every rule of ``stage`` on ``subject``;
        False as soon as one says the subject must not be examined further
        in this stage."""
        for fn in self._entry_fns[stage]:  # noqa: SIM110 (the object path's hot loop: kept plain)
            if fn(ctx, subject) is False:
                return False
        return True

    def entry_forms(self, stage: str) -> tuple[Callable[..., bool | None], ...]:
        """The entry forms of ``stage``, in order (for a caller that runs
        them itself in a hot loop: same meaning as ``diagnose``)."""
        return self._entry_fns[stage]

    def holds(self, stage: str, cols: Any) -> bool:
        """The vectorised form of every rule of ``stage``: True when each
        holds for every entry (the columnar proof of that stage)."""
        return all(r.columns is None or bool(np.all(r.columns(cols))) for r in self.by_stage[stage])
