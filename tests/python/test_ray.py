"""`beaker.ray`: a pool of Ray actors on a local Ray instance started here (2 CPUs, no dashboard)."""

import asyncio
import time

import pytest
import ray

from beaker.ray import Pool


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def calls(stats, tool):
    return [next(t for t in s["tools"] if t["tool"] == tool) for s in stats]


def test_calls_are_spread_over_the_actors_and_answered_right():
    pool = Pool(actors=2, python=False, workers=1)

    async def main():
        return await asyncio.gather(*[pool.acall("calculator", {"expression": f"{i} * 7"}) for i in range(100)])

    envs = asyncio.run(main())
    assert [e["result"]["value"] for e in envs] == [str(i * 7) for i in range(100)]
    per_actor = [c["succeeded"] for c in calls(pool.stats(), "calculator")]
    assert sum(per_actor) == 100 and all(n > 0 for n in per_actor), per_actor


def test_a_tools_own_failure_is_not_retried():
    pool = Pool(actors=2, python=False)
    env = pool.call("calculator", {"expression": "1/0"})
    assert env["error_kind"] == "domain_error"
    failed = [sum(n for _, n in c["failed"]) for c in calls(pool.stats(), "calculator")]
    assert sum(failed) == 1, failed


def test_a_call_whose_actor_dies_is_retried_on_another():
    pool = Pool(actors=2, python=False, _test_tools=True)
    pool.stats()  # both actors are up

    async def main():
        task = asyncio.ensure_future(pool.acall("_block", {}, limits={"timeout_ms": 1500}))
        await asyncio.sleep(1.0)
        ray.kill(pool.actors[0], no_restart=False)  # the first call goes to actor 0
        return await task

    started = time.monotonic()
    env = asyncio.run(main())
    # Retried on actor 1, where it ran to its own limit.
    assert env["error_kind"] == "timeout", env
    assert time.monotonic() - started < 60
    assert calls([ray.get(pool.actors[1].stats.remote())], "_block")[0]["failed"] == [["timeout", 1]]
    # Ray restarted actor 0: the pool still answers on both.
    assert pool.call("calculator", {"expression": "2 + 2"})["result"]["value"] == "4"
