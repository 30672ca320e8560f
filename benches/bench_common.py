"""What the SciPy timing scripts share: the input stream of benches/support/lcg.rs and a median timer."""
import statistics
import time

MASK = (1 << 64) - 1


def uniforms(seed, n):
    """n uniforms in [0, 1), the same stream as benches/support/lcg.rs."""
    s, out = seed, []
    for _ in range(n):
        s = (s * 6364136223846793005 + 1442695040888963407) & MASK
        out.append((s >> 11) / float(1 << 53))
    return out


def median_time(f, reps):
    """The median wall time of `reps` calls of f, in seconds."""
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)
