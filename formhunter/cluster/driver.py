"""The driver of a cluster crawl: starts or joins Ray (``cluster.local``), the actors, and
hands out work.

Actors (formhunter/cluster/README.md has the picture):

- ``n`` shard actors (``ShardActor`` around ``shard.ShardWorker``), one CPU each,
  restarted by Ray when they die (``max_restarts``); a restarted shard reloads its
  part of the run from the catalogue through the writer;
- one catalogue writer (``writer.CatalogueWriter``) on the driver's node (the DuckDB
  file is there);
- for learning strategies, one learner actor (``LearnerActor``) holding the learners
  and their path repository; each new link scorer is put in the object store once
  and its reference handed to every shard, which re-ranks its own frontier.

The driver never sees page content: it hands each idle shard a page allowance (the
allowances out never exceed what is left of the global budget), the links other
shards found for its sites and the current model's reference, and merges the
counters of each step's report. A step's rows are committed by the writer before
the step returns, so a killed driver loses no committed page, and a killed shard
loses only its uncommitted step (those links are fetched again: they were in flight).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import ray
from ray.exceptions import RayActorError, RayError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from formhunter.catalogue import Catalogue
from formhunter.cluster.local import start_ray, stop_ray
from formhunter.cluster.shard import (
    RoutedLink,
    ShardCatalogue,
    ShardState,
    ShardWorker,
    StepReport,
)
from formhunter.cluster.writer import CatalogueWriter
from formhunter.components import Components, restore_learners
from formhunter.config import Settings
from formhunter.exceptions import ClusterError, FormhunterError, UsageError
from formhunter.frontier.policy import end_rules, first_reason, stop_rules
from formhunter.interfaces import LinkScorer, PageOutcome
from formhunter.runtime import stop_at_once_on_signals
from formhunter.schema import now
from formhunter.stats import CrawlResult, CrawlStats
from formhunter.strategies import get_strategy

log = logging.getLogger(__name__)

#: Seconds a shard crawls per step (a step ends committed); restarts allowed per shard.
STEP_SECONDS = 1.0
MAX_RESTARTS = 8

Listener = Callable[[str, "ClusterCrawl"], None]


class LearnerActor:
    """The learners of the run (built from the strategy as in a single process) fed
    with every shard's outcomes; each new scorer is ``ray.put`` once."""

    def __init__(self, settings: Settings, run_id: int, writer: Any) -> None:
        self.cat = ShardCatalogue()  # learners record their iterations here
        comps = Components.build(settings, get_strategy(settings.crawl.strategy),
                                 catalogue=self.cat, run_id=run_id)  # fmt: skip
        self.learners = comps.learners
        self.writer = writer
        self.version = 0
        self.ref: Any = None
        self.faults = 0
        self.cpu_seconds = 0.0
        # a resumed run: the learners' saved states, and the scorer they had handed out
        base, stats = comps.scorer, CrawlStats()
        restore_learners(comps, ray.get(writer.learner_states.remote()), stats)
        self.faults += sum(stats.faults.values())
        if comps.scorer is not base:
            self.version, self.ref = 1, ray.put(comps.scorer)

    def _save(self) -> None:
        """The learners' states to the catalogue (``Learner.state``), as a process saves
        them with its commits; a resumed run restores them."""
        states = []
        for name, learner in self.learners:
            try:
                states.append((name, learner.state()))
            except Exception:
                self.faults += 1
                log.exception("learner %s failed to save its state", name)
        ray.get(self.writer.save_learner_states.remote(states))

    def observe(self, outcomes: list[PageOutcome]) -> int:
        c0 = time.process_time()
        new: LinkScorer | None = None
        for outcome in outcomes:
            for name, learner in self.learners:
                try:
                    scorer = learner.observe(outcome)
                except Exception:
                    self.faults += 1
                    log.exception("learner %s failed", name)
                    continue
                if scorer is not None:
                    new = scorer
        if new is not None:
            self.version += 1
            self.ref = ray.put(new)  # once; every shard gets the reference
        rows = self.cat.take_learning()
        if rows:
            ray.get(self.writer.add_learning.remote(rows))
        if new is not None or rows:
            self._save()
        self.cpu_seconds += time.process_time() - c0
        return self.version

    def finish(self) -> None:
        """The crawl ended: every learner saves or releases what it holds."""
        for name, learner in self.learners:
            try:
                learner.finish()
            except Exception:
                self.faults += 1
                log.exception("learner %s failed to finish", name)
        rows = self.cat.take_learning()
        if rows:
            ray.get(self.writer.add_learning.remote(rows))
        self._save()

    def latest(self) -> tuple[int, list[Any], int, float]:
        """(model version, [its object reference] or [], faults, CPU seconds)."""
        return self.version, [self.ref] if self.ref is not None else [], self.faults, \
            self.cpu_seconds


class ShardActor:
    """A shard as a Ray actor: loads its state through the writer (again after a restart)."""

    def __init__(self, shard: int, n_shards: int, settings: Settings, run_id: int,
                 seeds: Sequence[str], writer_name: str, learner_name: str) -> None:  # fmt: skip
        # named, not handles: a restart must not depend on arguments kept in the object store
        writer: Any = ray.get_actor(writer_name)
        learner: Any = ray.get_actor(learner_name) if learner_name else None
        state: ShardState = ray.get(writer.shard_state.remote(shard, n_shards))
        restarted = ray.get_runtime_context().was_current_actor_reconstructed
        self.pending_learn: Any = None

        async def ship(k: int, tables: dict[str, Any]) -> Any:
            return await writer.write.remote(k, tables)

        async def learn(outcomes: list[PageOutcome]) -> None:
            if self.pending_learn is not None:  # at most one batch waits per shard
                await self.pending_learn
            self.pending_learn = learner.observe.remote(outcomes)

        async def load_model(ref: Any) -> LinkScorer:
            scorer: LinkScorer = await ref
            return scorer

        self.worker: ShardWorker = ShardWorker(
            shard, n_shards, settings, run_id, seeds, state, ship=ship,
            learn=learn if learner is not None else None, load_model=load_model,
            restarts=int(restarted))  # fmt: skip

    def ready(self) -> int:
        """The shard's links waiting (the driver waits for every shard's set-up)."""
        return len(self.worker.frontier)

    def models(self) -> dict[str, Any]:
        """The models this shard judges with (``Components.models``: ``runs.models``)."""
        return self.worker.models

    async def step(self, allowance: int, inbox: list[RoutedLink], at_page: int,
                   model: tuple[int, list[Any]], seconds: float,
                   refill: bool = False) -> StepReport:  # fmt: skip
        return await self.worker.step(allowance, inbox, at_page, model, seconds, refill)

    async def close(self) -> None:
        await self.worker.close()


def _user_error(exc: BaseException, what: str) -> FormhunterError:
    """The formhunter error a remote call raised (a damaged catalogue, ...), else a
    ``ClusterError`` with the first line of Ray's message."""
    seen: BaseException | None = exc
    for _ in range(8):  # Ray wraps: RayTaskError / ActorDiedError -> ... -> the cause
        if isinstance(seen, FormhunterError):
            return seen
        seen = getattr(seen, "cause", None) or (seen.__cause__ if seen is not None else None)
        if seen is None:
            break
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return ClusterError(f"{what}: {first}")


class ClusterCrawl:
    """One crawl on a Ray cluster (module doc); ``run`` returns a ``CrawlResult``.

    ``workers``: shards (default: the cluster's CPUs). Listeners are called as
    ``listener(event, crawl)`` for "start", "step" (each step report, ``last``),
    "learn" and "end"; ``shards`` are the shard actors' handles.
    """

    def __init__(self, settings: Settings, *, seeds: Sequence[str] = (), resume: bool = False,
                 workers: int = 0, address: str | None = None) -> None:  # fmt: skip
        if settings.render.mode != "never":
            raise UsageError("--render is not available on a cluster yet (use --render never)")
        self.settings = settings
        self.seeds = list(seeds)
        self.resume = resume
        self.workers = workers
        self.address = address
        self.listeners: list[Listener] = []
        self.shards: list[Any] = []
        self.run_id = 0
        self.stats = CrawlStats()
        self.last: StepReport | None = None
        self.restarts = 0
        self.learning_iterations = 0
        self.writer_cost: dict[str, float] = {}
        self.learner_cpu = 0.0
        self.catalogue_stats: dict[str, Any] = {}
        self._stop = ""

    def listen(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def stop(self, reason: str = "interrupted") -> None:
        if not self._stop:
            self._stop = reason

    def _emit(self, event: str) -> None:
        for listener in self.listeners:
            try:
                listener(event, self)
            except Exception:
                log.exception("listener failed on %s", event)

    def run(self) -> CrawlResult:
        # a damaged, locked or newer catalogue is refused here, before Ray starts
        Catalogue(self.settings.crawl.db).close()
        # a signal while Ray starts or the actors are set up is a stop, never an
        # exception inside Ray's start-up (which can abort the process: exit -6); the
        # loop then ends at once and the run is marked interrupted
        with stop_at_once_on_signals(self.stop):
            own = start_ray(self.workers or 2, self.address)
            try:
                n = self.workers or max(int(ray.cluster_resources().get("CPU", 1)), 1)
                try:
                    return self._run(n)
                except RayError as exc:  # the writer or the learner died: a clean end
                    raise self._died(exc) from None
                except KeyboardInterrupt:  # raised outside the loop: mark the run
                    self._mark_interrupted()
                    raise
            finally:
                if own:
                    stop_ray()

    def _mark_interrupted(self) -> None:
        """Mark this crawl's run interrupted when a stop came outside the loop (the writer
        had opened it, the loop had not begun): --resume continues it. The writer is
        killed by then; its lock may outlive it a moment."""
        for _ in range(50):
            try:
                with Catalogue(self.settings.crawl.db) as cat:
                    run = cat.run(self.run_id) if self.run_id else cat.run()
                    if run is not None and run.status == "running":
                        cat.update_run(run.run_id, status="interrupted",
                                       end_reason="interrupted", finished_at=now())
                        cat.commit()
                return
            except (FormhunterError, OSError):
                time.sleep(0.1)

    def _died(self, exc: RayError, what: str = "an actor of the crawl died") -> FormhunterError:
        """The one-line error of a crawl whose writer, learner or shards died: the run is
        marked interrupted (what was committed stays) and the message says how to go on
        (--resume when the catalogue holds the run, else the same command again)."""
        err = _user_error(exc, what)
        log.debug("cluster crawl failed", exc_info=exc)
        if not isinstance(err, ClusterError):
            return err
        db = self.settings.crawl.db
        run_id = self.run_id
        # a killed writer's process may hold the file's lock a moment after ray.kill
        # returns: wait for it (up to ~10 s), so the run is marked and the file free
        for _ in range(50):
            try:
                with Catalogue(db) as cat:
                    if run_id:
                        cat.update_run(run_id, status="interrupted", end_reason="interrupted")
                        cat.commit()
                    else:  # it died while opening the run: is there one to resume?
                        run = cat.run()
                        run_id = run.run_id if run is not None else 0
                break
            except FormhunterError as exc:
                if "in use" not in str(exc):
                    break
                time.sleep(0.2)
            except OSError:
                break
        if run_id:
            return ClusterError(f"{err}; what was committed is kept, continue with: "
                                f"formhunter crawl --resume --db {db}")
        return ClusterError(f"{err}; nothing was written: run the same command again")

    def _run(self, n: int) -> CrawlResult:
        s = self.settings
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        names = f"formhunter-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        writer: Any = ray.remote(CatalogueWriter).options(
            num_cpus=0, scheduling_strategy=here, name=f"{names}-writer").remote(
                s.crawl.db, s.crawl.snapshot_every_seconds, s.crawl.db_memory_mb,
                (s.crawl.commit_every_pages, s.crawl.commit_every_seconds))
        learner: Any = None
        try:
            try:
                self.run_id, counters, committed, self.seeds = ray.get(writer.open_run.remote(
                    domain=s.crawl.domain, strategy=s.crawl.strategy, max_pages=s.crawl.max_pages,
                    config=s.to_dict(), seeds=self.seeds, resume=self.resume))
            except RayError as exc:
                raise self._died(exc, "the catalogue writer failed") from None
            if counters is not None:
                self.stats = CrawlStats.from_dict(counters)
                self.stats.pages = committed  # the counters may be older (a killed driver)
                self.learning_iterations = self.stats.learning_iterations
            if get_strategy(s.crawl.strategy).learners:
                learner = ray.remote(LearnerActor).options(
                    num_cpus=0, name=f"{names}-learner").remote(s, self.run_id, writer)
            # one CPU per shard; more shards than CPUs share them
            cpus = min(1.0, float(ray.cluster_resources().get("CPU", 1)) / n)
            actor = ray.remote(ShardActor).options(num_cpus=cpus, max_restarts=MAX_RESTARTS,
                                                   max_task_retries=0)  # fmt: skip
            self.shards = [actor.remote(k, n, s, self.run_id, self.seeds, f"{names}-writer",
                                        f"{names}-learner" if learner is not None else "")
                           for k in range(n)]  # fmt: skip
            try:
                ray.get([h.ready.remote() for h in self.shards])  # set-up is not crawl time
                models = ray.get([h.models.remote() for h in self.shards])
            except RayError as exc:
                raise self._died(exc, "a shard could not start") from None
            if any(m != models[0] for m in models):  # one settings object: never expected
                raise ClusterError(f"the shards judge with different models: {models}")
            # the run's models, as one process records them (``rejudge`` reproduces verdicts)
            ray.get(writer.update_run.remote(models=models[0]))
            reason = "interrupted"
            # a signal while the crawl ends (learner saving, the writer's last commit)
            # is a stop too: the end is not cut short and the run is marked
            with stop_at_once_on_signals(self.stop):
                self.stats.started = time.monotonic()
                self.stats.cpu_started = time.process_time()
                self.stats.session_pages = 0
                start_pages = self.stats.pages
                self._emit("start")
                reason = self._loop(writer, learner)
                if learner is not None:
                    ray.get(learner.finish.remote())
                exact = ray.get(writer.run_stats.remote())  # a lost step's report is kept here
                st = self.stats
                st.pages, st.forms = exact["pages"], exact["forms"]
                st.searchable, st.relevant = exact["searchable_forms"], exact["relevant_forms"]
                st.session_pages = st.pages - start_pages
                self.stats.learning_iterations = self.learning_iterations
                failed = int(ray.get(writer.cost.remote())["snapshot_failures"])
                if failed:  # counted as one process counts them
                    st.errors["snapshot"] = failed
                self.stats.ended = (time.monotonic(), time.process_time())
                if self._stop == "interrupted":
                    reason = "interrupted"
                status = "interrupted" if reason == "interrupted" else "finished"
                self.catalogue_stats = ray.get(writer.finish.remote(status, reason,
                                                                    **self._run_fields()))
            self.writer_cost = ray.get(writer.cost.remote())
            self._emit("end")
            return CrawlResult(self.run_id, reason, self.stats)
        finally:
            for h in self.shards:
                with contextlib.suppress(RayError, TimeoutError):
                    ray.get(h.close.remote(), timeout=10)
                ray.kill(h, no_restart=True)
            if learner is not None:
                ray.kill(learner, no_restart=True)
            try:
                with contextlib.suppress(RayError):  # a writer that died has nothing to close
                    ray.get(writer.close.remote(), timeout=30)
            finally:
                ray.kill(writer, no_restart=True)

    def _run_fields(self) -> dict[str, Any]:
        st = self.stats
        return {"pages_fetched": st.pages, "forms": st.forms, "searchable_forms": st.searchable,
                "relevant_forms": st.relevant, "errors": dict(st.errors),
                "counters": {**st.to_dict(), "cluster": {"shards": len(self.shards),
                                                         "restarts": self.restarts}},
                "stage_seconds": dict(st.stage)}  # fmt: skip

    def _loop(self, writer: Any, learner: Any) -> str:
        """Hand out steps until a stop or end rule, the budget or a stop (module doc)."""
        st, max_pages = self.stats, self.settings.crawl.max_pages
        d = _Dispatch(self, writer)
        if learner is not None:  # a resumed run's restored scorer is not a new iteration
            version, refs, _, _ = ray.get(learner.latest.remote())
            d.model = (version, refs)
        last_update = time.monotonic()
        stops, ends = stop_rules(self.settings), end_rules(self.settings)
        latest: Any = None  # a ``learner.latest`` call in flight (never waited for)
        while True:
            stop = first_reason(stops, st)
            stopping = self._stop or stop
            if not stopping:
                d.hand_out(max_pages - st.pages)
            # stopping, a shard that is restarting is not waited for
            if not d.pending or (stopping and all(kind == "ready" for *_, kind in
                                                  d.pending.values())):  # fmt: skip
                if d.deliver():  # links for other shards' sites are stored before the end
                    continue
                reason = self._stop or stop or ("budget" if st.pages >= max_pages else "")
                if not reason and all(d.dry) and not any(d.inbox):
                    if d.refill():  # the dry rules of every shard act, then go on
                        continue
                    reason = first_reason(ends, st) or "exhausted"
                if reason:
                    if learner is not None:  # what it learnt from the last steps
                        self._learnt(d, ray.get(learner.latest.remote()))
                    return reason
                time.sleep(0.05)
                continue
            done, _ = ray.wait(list(d.pending), num_returns=1, timeout=0.5)
            for ref in done:
                d.returned(ref)
            # the learner's latest model, asked after a step and read once it answers:
            # the steps go out meanwhile (the learner may be busy with outcomes)
            if learner is not None and latest is None and done:
                latest = learner.latest.remote()
            if latest is not None and ray.wait([latest], timeout=0)[0]:
                self._learnt(d, ray.get(latest))
                latest = None
            if time.monotonic() - last_update >= 1.0:
                st.learning_iterations = self.learning_iterations
                writer.update_run.remote(**self._run_fields())
                last_update = time.monotonic()

    def _learnt(self, d: _Dispatch, latest: tuple[int, list[Any], int, float]) -> None:
        """The learner actor's ``latest``: a new model goes out with the next steps."""
        version, refs, faults, cpu = latest
        self.learner_cpu = cpu
        if faults:
            self.stats.faults["learner"] = faults
        if version > d.model[0]:
            self.learning_iterations += version - d.model[0]
            d.model = (version, refs)
            self._emit("learn")


class _Dispatch:
    """What the driver's loop knows of its shards: the links waiting for each (``inbox``;
    ``sent``: delivered with the step in flight), which are dry, the fetches each idle
    one carries over to its next step (``carried``: they count against the budget and
    against that step's allowance), the calls in flight (ref -> (shard, allowance,
    "step" | "ready")) and the model they crawl with."""

    def __init__(self, crawl: ClusterCrawl, writer: Any) -> None:
        n = len(crawl.shards)
        self.crawl, self.writer, self.n = crawl, writer, n
        self.inbox: list[list[RoutedLink]] = [[] for _ in range(n)]
        self.sent: dict[int, list[RoutedLink]] = {}
        self.dry = [False] * n
        self.carried = [0] * n
        self.failures = [0] * n
        self.waits = [0] * n  # failed "ready" calls while a shard restarts
        self.pending: dict[Any, tuple[int, int, str]] = {}
        self.model: tuple[int, list[Any]] = (0, [])
        self.step_cap = max(4 * crawl.settings.crawl.batch_pages, 16)
        self.refill_failed = False  # the last refill round queued nothing, no page since

    def _step(self, k: int, new: int, seconds: float, refill: bool = False) -> None:
        """A step to shard ``k``: ``new`` pages beyond the fetches it carries."""
        allowance, self.carried[k] = self.carried[k] + new, 0
        self.sent[k], self.inbox[k] = self.inbox[k], []
        ref = self.crawl.shards[k].step.remote(allowance, self.sent[k], self.crawl.stats.pages,
                                               self.model, seconds, refill)  # fmt: skip
        self.pending[ref] = (k, allowance, "step")

    def refill(self) -> bool:
        """Every shard is dry (nothing queued, nothing in flight, no link waiting): each
        one's dry rules act (extend its sites, open its reserve), as one process's act
        when its whole frontier is dry. Whether a round went out: not again after a
        round that queued nothing, until a page is fetched."""
        if self.refill_failed:
            return False
        self.refill_failed = True  # until a shard's report says its rules queued links
        for k in range(self.n):
            self._step(k, 0, 0.0, refill=True)
        return True

    def hand_out(self, left: int) -> None:
        """A step to each idle shard with work, page allowances within the ``left``
        budget (less the fetches carried over); a shard that carries fetches gets a step
        to record them even when no budget is left for new ones."""
        busy = {k for k, _, _ in self.pending.values()}
        free = left - sum(a for _, a, _ in self.pending.values()) - sum(self.carried)
        for k in range(self.n):
            if k in busy or (self.dry[k] and not self.inbox[k] and not self.carried[k]):
                continue
            new = min(free, self.step_cap, max(math.ceil(free / self.n), 8)) if free > 0 else 0
            if new or self.carried[k]:
                self._step(k, new, STEP_SECONDS)
                free -= new

    def deliver(self) -> bool:
        """Links waiting for idle shards go there in a step with no page allowance (so a
        resume has them); whether any did."""
        busy = {k for k, _, _ in self.pending.values()}
        todo = [k for k in range(self.n) if self.inbox[k] and k not in busy]
        for k in todo:
            self._step(k, 0, 0.0)
        return bool(todo)

    def returned(self, ref: Any) -> None:
        """A call came back: merge a step's report, or handle a shard that died."""
        k, _, kind = self.pending.pop(ref)
        try:
            result = ray.get(ref)
        except RayActorError as exc:
            self._died(k, kind, exc)
            return
        if kind == "ready":
            self.waits[k] = 0
            return
        rep: StepReport = result
        crawl, st = self.crawl, self.crawl.stats
        self.sent.pop(k, None)
        pages = st.pages
        st.merge(rep.stats)
        st.learning_iterations = crawl.learning_iterations  # the learner actor's
        # the writer's count: it holds pages of steps that died after their commit
        # and of steps not reported yet, so the budget never overshoots
        st.pages = max(pages, rep.committed)
        st.session_pages += rep.pages
        st.worker_cpu += rep.cpu_seconds
        self.dry[k] = rep.dry
        self.carried[k] = rep.in_flight
        if rep.refilled or rep.pages:
            self.refill_failed = False
        for dest, links in rep.routed.items():
            self.inbox[dest].extend(links)
            self.dry[dest] = False
        crawl.last = rep
        crawl._emit("step")

    def _died(self, k: int, kind: str, exc: RayActorError) -> None:
        crawl = self.crawl
        if kind == "step":
            self.failures[k] += 1
            crawl.restarts += 1
            self.inbox[k] = self.sent.pop(k, []) + self.inbox[k]  # delivered again after restart
            self.carried[k] = 0  # died with it: its links are queued in the catalogue
            # the dead step may have been committed before it died: ask the file
            crawl.stats.pages = max(crawl.stats.pages, ray.get(self.writer.page_count.remote()))
            self.dry[k] = False
            log.warning("shard %d died (%s); Ray restarts it", k, type(exc).__name__)
        else:
            self.waits[k] += 1
            time.sleep(0.1)
        if self.failures[k] > MAX_RESTARTS or self.waits[k] > 600:
            raise ClusterError(f"shard {k} died {self.failures[k]} times and did not "
                               "come back") from exc  # fmt: skip
        # a step waits until the restarted shard has loaded its state
        self.pending[crawl.shards[k].ready.remote()] = (k, 0, "ready")


__all__ = ["ClusterCrawl", "LearnerActor", "ShardActor", "start_ray", "stop_ray"]
