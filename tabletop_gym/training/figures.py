"""The plots' one way to a file: a matplotlib figure written as a PNG whole or not at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tabletop_gym.core import atomic_output


def save_figure(fig: Any, path: Path, dpi: int = 110) -> str:
    """Write ``fig`` to ``path`` as a PNG through a temporary file (a Ctrl-C leaves the old file or
    none, never half a picture), and close it, so a long run's plots do not pile up in memory."""
    import matplotlib.pyplot as plt  # the training extra, imported by whoever made the figure

    try:
        with atomic_output(path) as tmp:
            fig.savefig(tmp, format="png", dpi=dpi)
    finally:
        plt.close(fig)
    return str(path)
