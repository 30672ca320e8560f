"""Throughput of `beaker.ray.Pool` with 1 and 2 actors on a local Ray instance (docs/PERFORMANCE.md).

Usage: python benches/ray_pool.py [CALLS] [IN_FLIGHT]   (a python with `import beaker` and ray, e.g. the test venv's)
"""

import asyncio
import sys
import time

import ray

from beaker.ray import Pool

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
IN_FLIGHT = int(sys.argv[2]) if len(sys.argv) > 2 else 64
REQUESTS = [("calculator 7*8", "calculator", {"expression": "7 * 8"}, CALLS),
            ("execute_python print(2**100)", "execute_python", {"code": "print(2**100)"}, CALLS // 10)]


async def flood(pool, tool, params, n):
    sem = asyncio.Semaphore(IN_FLIGHT)

    async def one():
        async with sem:
            assert (await pool.acall(tool, params))["success"]

    await asyncio.gather(*(one() for _ in range(IN_FLIGHT)))  # warm up every actor
    t = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return n / (time.perf_counter() - t)


def main():
    ray.init(include_dashboard=False, log_to_driver=False)
    print(f"{ray.available_resources().get('CPU', 0):.0f} CPUs; {IN_FLIGHT} calls in flight")
    for actors in (1, 2):
        pool = Pool(actors=actors)
        for name, tool, params, n in REQUESTS:
            rate = asyncio.run(flood(pool, tool, params, n))
            print(f"{actors} actor(s)  {name:<30} {rate:8.0f} calls/s ({n} calls)", flush=True)
        for a in pool.actors:
            ray.kill(a)
    ray.shutdown()


if __name__ == "__main__":
    main()
