"""``list``: the records built from the columns (listing.json_lines) are
the text json.dumps gives the object path's records, on every test binary,
before and after relax; Image.symbolize_many agrees with symbolize."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import GOOD

from dyncall_rewrite.check import check
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image
from dyncall_rewrite.listing import json_lines, records
from dyncall_rewrite.relax import relax


def _same_as_objects(img: Image) -> int:
    an = check(img)
    assert an.columns is not None, "the columns should prove this binary clean"
    fast = list(json_lines(an))
    slow = check(Image(img.path, img.data, dict(img._layout)), columns=False)
    assert slow.columns is None
    want = [json.dumps(r) for r in records(slow)]
    assert fast == want
    return len(fast)


@pytest.mark.parametrize("variant", [v for v in GOOD if "stripped" not in v])
def test_columns_records_equal_objects(binaries, tmp_path, variant) -> None:
    img = Image.load(binaries(variant))
    assert _same_as_objects(img) > 0
    out = tmp_path / "relaxed"
    res = relax(img)
    out.write_bytes(bytes(res.data))
    assert res.changed
    if variant in ("clang-pie", "gcc-pie"):
        assert res.resolved > 0
    # resolved states, current targets and filled sites, through the columns
    assert _same_as_objects(Image.load(str(out))) > 0


def test_list_json_cli_matches_records(binaries, capsys) -> None:
    path = binaries("gcc-retpoline")
    assert main(["list", "--json", path]) == 0
    d = json.loads(capsys.readouterr().out)
    an = check(Image.load(path))
    assert d == {"file": path, "arch": "x86_64", "problems": 0, "sites": records(an)}


def test_symbolize_many_matches_symbolize(binaries) -> None:
    for variant in ("gcc-pie", "clang-shared", "gcc-stripped"):
        img = Image.load(binaries(variant))
        vals = np.array(img._sym_val, np.int64)
        probes = np.concatenate(
            [vals, vals + 1, vals - 1, np.array([0, 1, 2**40, 2**62]), np.arange(0, 0x5000, 7)]
        )
        probes = probes[probes >= 0]
        assert img.symbolize_many(probes) == [img.symbolize(int(a)) if a else None for a in probes.tolist()]
        # unordered and repeated input, names already decoded
        rev = probes[::-1].copy()
        assert img.symbolize_many(rev) == [img.symbolize(int(a)) if a else None for a in rev.tolist()]
