"""What /proc says of a process the tests started."""

from __future__ import annotations

import signal
from pathlib import Path


def ignores_sigterm(pid: int) -> bool:
    """Whether ``pid`` ignores SIGTERM (its ``SigIgn`` mask)."""
    status = Path(f"/proc/{pid}/status").read_text()
    ignored = int(next(ln for ln in status.splitlines() if ln.startswith("SigIgn:")).split()[1], 16)
    return bool(ignored & (1 << (signal.SIGTERM - 1)))
