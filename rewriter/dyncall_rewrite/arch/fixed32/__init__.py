"""What aarch64 and ppc64le share (4-byte instruction words): ``backend``
(FixedWidthBackend) and ``columns`` (FixedWidthColumns)."""
