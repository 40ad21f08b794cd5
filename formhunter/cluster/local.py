"""Starting or joining Ray for a cluster crawl: a local cluster listens on 127.0.0.1 only
(Ray's single-machine mode) and carries a per-process token (``start_ray``); ``stop_ray``
shuts it down and removes its temporary directories."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import signal
import tempfile
from typing import Any

import ray

from formhunter.exceptions import ClusterError
from formhunter.runtime import STOP_SIGNALS

#: Temporary directories (sessions, logs) of the local clusters this process started.
_TEMP_DIRS: list[str] = []


def stop_ray() -> None:
    """Shut Ray down; remove the temporary directories of local clusters started here."""
    ray.shutdown()
    while _TEMP_DIRS:
        shutil.rmtree(_TEMP_DIRS.pop(), ignore_errors=True)
    _restore_cluster_mode()


#: The node address of a local cluster. Ray binds its core gRPC servers (GCS, raylet,
#: object manager, each worker's and the driver's) to 127.0.0.1 only when the node's
#: address is 127.0.0.1; on Linux it turns 127.0.0.1 into the machine's outward address
#: (``services.resolve_ip_for_localhost``) unless its multi-machine mode is off
#: (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, the single-machine Ray of macOS and
#: Windows), which ``_local_cluster_env`` turns off for a local cluster.
LOCAL_NODE_IP = "127.0.0.1"
_CLUSTER_MODE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
#: what ``_local_cluster_env`` changed, for ``_restore_cluster_mode``
_SAVED_MODE: list[tuple[str | None, bool]] = []
#: A token for this process's local clusters (Ray's token authentication), never
#: written to disk: a second lock beside loopback (another user of this machine can
#: reach loopback), so each call to the cluster must carry it.
_LOCAL_TOKEN = secrets.token_hex(32)


def _local_cluster_env() -> None:
    """Ray's single-machine mode (every listener on 127.0.0.1) and token authentication
    (unless the user configured Ray's) for a local cluster."""
    from ray._private import ray_constants

    if not _SAVED_MODE:
        _SAVED_MODE.append((os.environ.get(_CLUSTER_MODE_ENV), ray_constants.ENABLE_RAY_CLUSTER))
    os.environ[_CLUSTER_MODE_ENV] = "0"  # the daemons and workers read it at start
    ray_constants.ENABLE_RAY_CLUSTER = False  # this process read it when ray was imported
    if "RAY_AUTH_MODE" in os.environ or "RAY_AUTH_TOKEN_PATH" in os.environ:
        return
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ.setdefault("RAY_AUTH_TOKEN", _LOCAL_TOKEN)
    from ray._raylet import Config  # type: ignore[attr-defined]  # read Ray's settings again

    Config.initialize("")


def _restore_cluster_mode() -> None:
    """Undo ``_local_cluster_env``'s single-machine mode (a later ``--ray-address`` join
    in this process advertises its real address)."""
    if not _SAVED_MODE:
        return
    from ray._private import ray_constants

    env, flag = _SAVED_MODE.pop()
    if env is None:
        os.environ.pop(_CLUSTER_MODE_ENV, None)
    else:
        os.environ[_CLUSTER_MODE_ENV] = env
    ray_constants.ENABLE_RAY_CLUSTER = flag


def start_ray(workers: int, address: str | None) -> bool:
    """Join ``address`` or start a local cluster of ``workers`` CPUs listening on
    127.0.0.1 only (quiet, no dashboard, token authentication, logs in a temporary
    directory). False if Ray was running already."""
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # ray.init replaces SIGTERM's handler (Python's, and a C++ one that aborts: exit -6);
    # the stop handlers in force before it are put back once it returns
    handlers = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    quiet: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
             "logging_level": logging.ERROR, "configure_logging": True}  # fmt: skip
    try:
        if address:
            ray.init(address=address, **quiet)
        else:
            tmp = tempfile.mkdtemp(prefix="fh-ray-")
            _TEMP_DIRS.append(tmp)
            _local_cluster_env()
            ray.init(num_cpus=workers, _node_ip_address=LOCAL_NODE_IP, _temp_dir=tmp,
                     **quiet)  # fmt: skip
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
        raise ClusterError(f"cannot start or join {where}: {exc}") from exc
    finally:
        for sig, handler in handlers.items():
            with contextlib.suppress(ValueError, TypeError):  # not the main thread
                signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    node_ip = ray.util.get_node_ip_address()
    if not address and node_ip != LOCAL_NODE_IP:  # a Ray that no longer keeps to loopback
        stop_ray()
        raise ClusterError(f"the local Ray cluster would listen on {node_ip}, not only on "
                           f"{LOCAL_NODE_IP}; not started (this Ray version: {ray.__version__})")
    return True
