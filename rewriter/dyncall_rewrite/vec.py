"""numpy helpers shared by the columnar code (columns.py, listing.py and
the arch backends' column hooks): sorted-set operations and byte columns."""

from __future__ import annotations

import numpy as np


def unique_inverse(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(x, return_inverse=True) by one stable argsort (numpy's
    hash-based unique is several times slower on 10^5 addresses)."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    first = np.ones(len(xs), bool)
    first[1:] = xs[1:] != xs[:-1]
    inv = np.empty(len(x), np.int64)
    inv[order] = np.cumsum(first) - 1
    return xs[first], inv


def unique_sorted(x: np.ndarray) -> np.ndarray:
    xs = np.sort(x)
    keep = np.ones(len(xs), bool)
    keep[1:] = xs[1:] != xs[:-1]
    return xs[keep]


def isin_sorted(x: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Membership of each x in a sorted array (np.isin without its sort)."""
    if not len(sorted_set):
        return np.zeros(len(x), bool)
    j = np.searchsorted(sorted_set, x)
    return sorted_set[np.minimum(j, len(sorted_set) - 1)] == x


def gather(u8: np.ndarray, offs: np.ndarray, width: int) -> np.ndarray:
    return u8[offs[:, None] + np.arange(width)]


def le_bytes(v: np.ndarray, width: int) -> np.ndarray:
    """Little-endian two's-complement bytes of each value, (n, width)."""
    return (v.astype(np.int64)[:, None] >> (8 * np.arange(width))).astype(np.uint8) & 0xFF


def has_duplicates(x: np.ndarray) -> bool:
    s = np.sort(x)
    return bool((s[1:] == s[:-1]).any())
