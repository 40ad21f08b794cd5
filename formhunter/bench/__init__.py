"""Benchmarks: ``harvest`` (strategies vs the omniscient ceiling), ``throughput``
(formhunter vs Scrapy vs parsing alone), the ``oracle`` and the ``report`` writer.

Run them as ``formhunter bench harvest|throughput`` (``formhunter.commands.bench``).
"""
