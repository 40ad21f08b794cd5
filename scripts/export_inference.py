"""Write the critic's inference files into a model folder (default: the shipped data/models).

    python scripts/export_inference.py [MODELS_DIR] [--kind searchable|domain|context ...]

Each ``inference.npz`` is checked bit for bit against scikit-learn before it is written
(``formhunter.trainers.inference``); ``formhunter judge`` then scores the models with
numpy and scipy.sparse alone.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from classifiers.persist import DEFAULT_MODELS
from formhunter.trainers.inference import KINDS, write_critic_inference


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="?", type=Path, default=DEFAULT_MODELS)
    parser.add_argument("--kind", action="append", choices=KINDS)
    args = parser.parse_args()
    start = time.perf_counter()
    written = write_critic_inference(args.models, tuple(args.kind or KINDS))
    for kind, path in written.items():
        print(f"{kind}: {path or 'not written (a model shape the format does not hold)'}")
    print(f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
