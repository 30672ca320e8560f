#!/usr/bin/env python3
"""Seed 002's bench questions (benches/scenarios/health.jsonl) answered in process by pandas and by DuckDB, over
the same imported dataset's Parquet files: the medians to set beside `beaker bench`'s p50s.

    ~/.cache/beaker/peers/bin/python benches/health_peers.py DATA/bench [--runs 50]

pandas holds the year in memory with the local time precomputed (as a long-running service would, its best
case: no file is read per question); DuckDB holds it in an in-memory table read once from the same Parquet files
and answers in SQL. Both use SciPy for the correlations and Welch's test, as Beaker uses its statistics tool.
Needs the peers venv (benches/peers/setup.sh: pandas, SciPy and DuckDB pinned there).
"""
import argparse
import statistics
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from scipy import stats

TZ = "America/Los_Angeles"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset", type=Path, help="the dataset's folder (DATA/NAME), with samples/*.parquet")
    ap.add_argument("--runs", type=int, default=50)
    args = ap.parse_args()
    files = str(args.dataset / "samples" / "*.parquet")
    con = duckdb.connect()
    con.execute(f"SET TimeZone = '{TZ}'")
    con.execute(f"CREATE TABLE s AS SELECT metric, start, \"end\", value FROM read_parquet('{files}')")
    df = con.execute("SELECT metric, start, value FROM s").df()
    df["start"] = pd.to_datetime(df["start"], utc=True)
    shift = pd.to_timedelta(np.where(df["metric"] == "sleep", 12, 0), unit="h")
    df["local"] = (df["start"] - shift).dt.tz_convert(TZ)
    df["day"] = df["local"].dt.strftime("%Y-%m-%d")
    by_metric = {m: g for m, g in df.groupby("metric")}
    print(f"{len(df)} samples, {len(by_metric)} metrics")

    def pd_range(m, a, b):
        x = by_metric[m]
        loc = x["local"].dt.tz_localize(None)
        return x[(loc >= pd.Timestamp(a)) & (loc < pd.Timestamp(b) + pd.Timedelta(days=1))]

    def pd_daily(m, a, b, how):
        return pd_range(m, a, b).groupby("day")["value"].agg(how)

    def pd_corr(pm, pa, sm, flt=None):
        a = pd_daily(pm, "2024-01-01", "2024-12-31", ["sum", "mean", "max"])
        b = pd_daily(sm, "2024-01-01", "2024-12-31", "sum")
        days = a.index.intersection(b.index)
        x, y = a.loc[days, pa].to_numpy(), b.loc[days].to_numpy()
        out = (stats.pearsonr(x, y), stats.spearmanr(x, y))
        if flt:
            hit = a.loc[days, "max"].to_numpy() > flt
            out += (stats.ttest_ind(y[hit], y[~hit], equal_var=False),)
        return out

    def pd_filter():
        hr = pd_range("heartRate", "2024-12-01", "2024-12-31")
        ex = pd_daily("exerciseMinutes", "2024-12-01", "2024-12-31", "sum")
        keep = set(ex[ex > 60].index)
        return hr[hr["day"].isin(keep)].groupby("day")["value"].agg(["mean", "count"])

    pandas_q = {
        "month_daily_avg": lambda: pd_daily("heartRate", "2024-12-01", "2024-12-31", ["mean", "count"]),
        "month_daily_steps": lambda: pd_daily("steps", "2024-06-01", "2024-06-30", ["sum", "count"]),
        "year_weekly_avg": lambda: by_metric["heartRate"].groupby(
            (by_metric["heartRate"]["local"].dt.tz_localize(None).dt.normalize()
             - pd.to_timedelta(by_metric["heartRate"]["local"].dt.day_of_week, unit="D")))["value"].agg(["mean", "count"]),
        "month_exercise_filter": pd_filter,
        "year_correlation": lambda: pd_corr("steps", "sum", "sleep"),
        "year_glucose_sleep": lambda: pd_corr("glucose", "mean", "sleep", 140),
        "year_hr_correlation": lambda: pd_corr("heartRate", "mean", "sleep"),
    }

    local = "(start - CASE WHEN metric = 'sleep' THEN INTERVAL 12 HOUR ELSE INTERVAL 0 HOUR END)"
    def daily_sql(m, a, b):
        return (f"SELECT strftime(date_trunc('day', {local}), '%Y-%m-%d') AS d, avg(value) AS avg, sum(value) AS sum, max(value) AS max, "
                f"count(*) AS n FROM s WHERE metric = '{m}' AND {local} >= TIMESTAMPTZ '{a}' "
                f"AND {local} < TIMESTAMPTZ '{b}' + INTERVAL 1 DAY GROUP BY d ORDER BY d")

    def duck_corr(pm, pa, sm, flt=None):
        a = con.execute(daily_sql(pm, "2024-01-01", "2024-12-31")).df().set_index("d")
        b = con.execute(daily_sql(sm, "2024-01-01", "2024-12-31")).df().set_index("d")
        days = a.index.intersection(b.index)
        x, y = a.loc[days, pa].to_numpy(), b.loc[days, "sum"].to_numpy()
        out = (stats.pearsonr(x, y), stats.spearmanr(x, y))
        if flt:
            hit = a.loc[days, "max"].to_numpy() > flt
            out += (stats.ttest_ind(y[hit], y[~hit], equal_var=False),)
        return out

    filter_sql = (f"WITH ok AS (SELECT date_trunc('day', start) AS d FROM s WHERE metric = 'exerciseMinutes' "
                  f"AND start >= TIMESTAMPTZ '2024-12-01' AND start < TIMESTAMPTZ '2025-01-01' GROUP BY d HAVING sum(value) > 60) "
                  f"SELECT strftime(date_trunc('day', start), '%Y-%m-%d') AS d, avg(value), count(*) FROM s WHERE metric = 'heartRate' "
                  f"AND start >= TIMESTAMPTZ '2024-12-01' AND start < TIMESTAMPTZ '2025-01-01' "
                  f"AND date_trunc('day', start) IN (SELECT d FROM ok) GROUP BY d ORDER BY d")
    duck_q = {
        "month_daily_avg": lambda: con.execute(daily_sql("heartRate", "2024-12-01", "2024-12-31")).fetchall(),
        "month_daily_steps": lambda: con.execute(daily_sql("steps", "2024-06-01", "2024-06-30")).fetchall(),
        "year_weekly_avg": lambda: con.execute("SELECT strftime(date_trunc('week', start), '%Y-%m-%d') AS w, avg(value), count(*) FROM s "
                                               "WHERE metric = 'heartRate' GROUP BY w ORDER BY w").fetchall(),
        "month_exercise_filter": lambda: con.execute(filter_sql).fetchall(),
        "year_correlation": lambda: duck_corr("steps", "sum", "sleep"),
        "year_glucose_sleep": lambda: duck_corr("glucose", "avg", "sleep", 140),
        "year_hr_correlation": lambda: duck_corr("heartRate", "avg", "sleep"),
    }

    def median_ms(f):
        f()
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            f()
            times.append((time.perf_counter() - t) * 1000)
        return statistics.median(times)

    print(f"{'question':24} {'pandas p50 ms':>14} {'DuckDB p50 ms':>14}")
    for name in pandas_q:
        print(f"{name:24} {median_ms(pandas_q[name]):14.2f} {median_ms(duck_q[name]):14.2f}")
    print(f"pandas {pd.__version__}, DuckDB {duckdb.__version__}, SciPy {__import__('scipy').__version__}")


if __name__ == "__main__":
    main()
