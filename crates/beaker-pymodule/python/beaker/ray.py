"""Scale-out on Ray (docs/PYTHON_API.md): a pool of Ray actors, each embedding a `beaker.Engine`.

    import ray, beaker.ray
    ray.init()
    pool = beaker.ray.Pool(actors=4, python=True)
    env = await pool.acall("execute_python", {"code": "print(2**100)"})

A call goes to the actor with the fewest calls in flight from this pool. A call answered with a `retryable`
failure (overload, cancellation, an internal error), or lost because its actor died, is sent once more to
another actor; Ray restarts a dead actor. Everything else (a tool's own failure) is returned as is.
"""

import asyncio
from typing import Any, Dict, List, Optional

import ray

from beaker import Engine, Envelope


@ray.remote(num_cpus=0, max_restarts=-1)
class EngineActor:
    """One `beaker.Engine` in a Ray worker process, serving many calls at once (an async actor)."""

    def __init__(self, engine_options: Dict[str, Any]) -> None:
        self.engine = Engine(**engine_options)

    async def call(self, tool: str, params: Optional[Dict[str, Any]], options: Dict[str, Any]) -> Envelope:
        return await self.engine.acall(tool, params, **options)

    def stats(self) -> Dict[str, Any]:
        return self.engine.stats()

    def tools(self, format: str) -> Any:
        return self.engine.tools(format)


def _lost(tool: str, why: str) -> Envelope:
    return {"id": None, "tool": tool, "success": False, "error": why, "error_kind": "internal",
            "fault": "infra", "retryable": True, "elapsed_us": 0}


class Pool:
    """`actors` Ray actors, each with an Engine built from `engine_options` (as `beaker.Engine`'s keywords);
    `max_concurrency` calls in flight per actor; `retries` further attempts on other actors."""

    def __init__(self, actors: int = 2, *, max_concurrency: int = 256, retries: int = 1,
                 **engine_options: Any) -> None:
        if actors < 1:
            raise ValueError("a pool needs at least one actor")
        self.actors: List[Any] = [
            EngineActor.options(max_concurrency=max_concurrency).remote(engine_options) for _ in range(actors)
        ]
        self.retries = retries
        self._in_flight = [0] * actors

    def _pick(self, avoid: set) -> int:
        candidates = [i for i in range(len(self.actors)) if i not in avoid] or list(range(len(self.actors)))
        return min(candidates, key=lambda i: self._in_flight[i])

    async def acall(self, tool: str, params: Optional[Dict[str, Any]] = None, **options: Any) -> Envelope:
        """Runs one call on the least-loaded actor (keywords as `Engine.acall`)."""
        tried: set = set()
        env: Envelope = _lost(tool, "no actor answered")
        for _ in range(self.retries + 1):
            i = self._pick(tried)
            tried.add(i)
            self._in_flight[i] += 1
            try:
                env = await self.actors[i].call.remote(tool, params, options)
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as e:
                env = _lost(tool, f"the actor running the call died: {type(e).__name__}")
            finally:
                self._in_flight[i] -= 1
            if env.get("success") or not env.get("retryable"):
                return env
        return env

    def call(self, tool: str, params: Optional[Dict[str, Any]] = None, **options: Any) -> Envelope:
        """`acall`, waited for (outside an event loop)."""
        return asyncio.run(self.acall(tool, params, **options))

    def stats(self) -> List[Dict[str, Any]]:
        """Each actor's `Engine.stats()`."""
        return ray.get([a.stats.remote() for a in self.actors])
