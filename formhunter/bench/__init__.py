"""Benchmarks: ``harvest`` (strategies vs the omniscient ceiling), ``throughput``
(formhunter vs Scrapy vs parsing alone), the ``oracle`` and the ``report`` writer;
``rerank`` (retraining and re-ranking a stored frontier, printed by
``scripts/bench_rerank.py``).

Run them as ``formhunter bench harvest|throughput`` (``formhunter.commands.bench``).
"""
