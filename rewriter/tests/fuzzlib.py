"""Mutation fuzzing of dyncall-rewrite on real dyncall binaries.

Shared by tests/test_fuzz.py (a few hundred cases in the suite) and
bench/rewriter_fuzz.py (>= 10,000).  Each case mutates a copy of a seed
binary (bit flips and byte stores concentrated on the dyncall tables, the
trampolines and the sites; random table fields; truncation; header bytes),
runs ``check`` and ``relax -o`` through cli.main in-process, and requires:
exit status 0 or 1; nothing on stderr but one ``dyncall-rewrite: error:``
line; no internal error (DC908); no hang (SIGALRM); the input unchanged;
and a relax output that itself passes check.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import signal
import struct
from dataclasses import dataclass, field

from differential import compare_engines

from dyncall_rewrite import abi
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image, section
from dyncall_rewrite.errors import RewriteError

TIMEOUT = 20


@dataclass
class Seed:
    path: str
    data: bytes
    hot: list[tuple[int, int]]  # (file offset, length) of interesting regions


def make_seed(path: str) -> Seed:
    img = Image.load(path)
    hot: list[tuple[int, int]] = []
    for name in (abi.DYNCALL_SITES_SECTION, abi.DYNCALL_KEYS_SECTION, ".data.rel.ro", ".rela.dyn"):
        s = section(img, name)
        if s is not None and s.size and s.offset:
            hot.append((s.offset, s.size))
    for name in (".text",):
        s = section(img, name)
        if s is not None:
            hot.append((s.offset, s.size))
    hot.append((0, 64))  # ELF header
    with open(path, "rb") as f:
        return Seed(path, f.read(), hot)


@dataclass
class Outcome:
    cases: int = 0
    rc: dict[int, int] = field(default_factory=dict)
    codes: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    engines: dict[str, int] = field(default_factory=dict)  # differential.compare_engines stats


def mutate(seed: Seed, rng: random.Random) -> tuple[bytes, str]:
    d = bytearray(seed.data)
    op = rng.choice(["flip", "flip", "byte", "field", "field", "truncate", "i32", "header"])
    if op == "truncate":
        n = rng.randrange(0, len(d))
        return bytes(d[:n]), f"truncate@{n}"
    if op == "header":
        o = rng.randrange(0, 64)
        d[o] = rng.randrange(256)
        return bytes(d), f"header[{o}]={d[o]}"
    off, size = rng.choice(seed.hot)
    if op == "field":
        # a random int32/u8/u16 field of a random table entry
        sites = seed.hot[0]
        n = max(1, sites[1] // abi.SITE_ENTRY_SIZE)
        base = sites[0] + abi.SITE_ENTRY_SIZE * rng.randrange(n)
        fo = rng.choice([0, 4, 8, 12, 16, 17, 18])
        if fo < 16:
            v = rng.choice([0, 1, -1, 4, -4, 8, 16, 0x7FFFFFFF, -(2**31), rng.randrange(-(2**16), 2**16)])
            cur = struct.unpack_from("<i", d, base + fo)[0]
            nv = v if rng.random() < 0.4 else max(-(2**31), min(2**31 - 1, cur + v))
            struct.pack_into("<i", d, base + fo, nv)
        else:
            d[base + fo] = rng.randrange(256)
        return bytes(d), f"field@{base:#x}+{fo}"
    k = rng.randrange(1, 4)
    desc = []
    for _ in range(k):
        o = off + rng.randrange(max(1, size))
        if o >= len(d):
            continue
        if op == "flip":
            d[o] ^= 1 << rng.randrange(8)
        elif op == "byte":
            d[o] = rng.randrange(256)
        else:
            if o + 4 <= len(d):
                struct.pack_into("<i", d, o, rng.randrange(-(2**31), 2**31))
        desc.append(f"{op}@{o:#x}")
    return bytes(d), ",".join(desc)


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Timeout()


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def run_case(data: bytes, work: str, what: str, res: Outcome) -> None:
    p = os.path.join(work, "fuzz.elf")
    o = os.path.join(work, "fuzz.out")
    with open(p, "wb") as f:
        f.write(data)
    if os.path.exists(o):
        os.unlink(o)
    res.cases += 1
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT)
    try:
        for argv in (["check", "--no-lines", p], ["relax", p, "-o", o]):
            rc, out, err = _run(argv)
            res.rc[rc] = res.rc.get(rc, 0) + 1
            problem = None
            if rc not in (0, 1):
                problem = f"exit {rc}"
            elif err and (not err.startswith("dyncall-rewrite: error: ") or err.count("\n") != 1):
                problem = f"stderr {err[:300]!r}"
            elif "DC908" in err:
                problem = f"internal error {err.strip()}"
            elif rc == 1 and argv[0] == "relax" and not err:
                problem = "relax failed silently"
            if err:
                code = err.split(": ")[3] if err.count(": ") >= 3 else "?"
                if code.startswith("DC"):
                    res.codes[code] = res.codes.get(code, 0) + 1
            for ln in out.splitlines():
                for w in ln.split():
                    if w.startswith("DC0") and w.endswith(":"):
                        res.codes[w[:-1]] = res.codes.get(w[:-1], 0) + 1
            with open(p, "rb") as f:
                if f.read() != data:
                    problem = "input modified"
            if problem:
                res.failures.append(f"{what}: {' '.join(argv[:1])}: {problem}")
                return
            if argv[0] == "relax" and rc == 0:
                rc2, out2, err2 = _run(["check", "--no-lines", o])
                if rc2 != 0:
                    res.failures.append(f"{what}: relaxed output fails check: {out2[-300:]}{err2}")
                    return
        # The columnar fast path and the object path must agree.
        try:
            img = Image.load(p)
            differs = compare_engines(img, res.engines)
        except RewriteError:
            differs = None  # refused by both (the CLI runs above check the message)
        if differs:
            res.failures.append(f"{what}: columns vs object path: {differs}")
    except _Timeout:
        res.failures.append(f"{what}: timeout after {TIMEOUT} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def fuzz(seeds: list[str], cases: int, work: str, seed: int = 1) -> Outcome:
    rng = random.Random(seed)
    ss = [make_seed(p) for p in seeds]
    res = Outcome()
    for _ in range(cases):
        s = rng.choice(ss)
        data, what = mutate(s, rng)
        run_case(data, work, f"{os.path.basename(s.path)}:{what}", res)
    return res
