#!/usr/bin/env python3
"""Seed 002's health data: a synthetic export, and what pandas and SciPy answer to the tools' questions about it.

    python3 tests/data/gen/health_reference.py             # writes tests/data/health/ (export, CGM, reports, reference)
    python3 tests/data/gen/health_reference.py --bench DIR # a year of minute-level heart rate for benches (not committed)

The export is what the importers read (Apple Health's export.xml with its local times and UTC offsets, a Dexcom
Clarity CSV, a generic CSV, JSON reports); reference.jsonl holds each tool call with the answer pandas 3 and
SciPy give, computed here from the same rows, never by Beaker. Tolerance: 1e-9 relative (sums and means in
another order); times, counts and labels exactly.

Rules the references follow (docs/TOOLS.md, query_timeseries_metrics): days, weeks (Monday), months and hours in
the dataset's time zone; a night's sleep counts on the day it starts (noon to noon); exact duplicates are
dropped; units are converted to each metric's (kJ -> kcal / 4.184, lb -> kg * 0.45359237, degF -> degC,
Apple's fraction percentages * 100); a filter on another metric keeps the days when that metric's total (steps,
exercise) or any reading (heart rate, glucose) passes; default aggregation sum for amounts, avg for levels.
"""
import argparse
import json
import math
import random
from datetime import datetime, timedelta, date
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd
from scipy import stats

TZ = ZoneInfo("America/Los_Angeles")
TZ_NAME = "America/Los_Angeles"
FIRST = date(2024, 10, 1)
DAYS = 92  # to 2024-12-31, across the end of DST (2024-11-03)
CUMULATIVE = {"steps", "activeEnergyBurned", "exerciseMinutes", "sleep", "distance"}
ASLEEP = ["HKCategoryValueSleepAnalysisAsleepCore", "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM"]


def apple_time(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S %z")


def local(d: date, h: int, m: int = 0, s: int = 0) -> datetime:
    return datetime(d.year, d.month, d.day, h, m, s, tzinfo=TZ)


def generate(rng: random.Random, days: int, hr_minutes: int):
    """Rows (metric, start, end, value-as-written, unit-as-written, kind) and the XML records."""
    xml, rows = [], []

    def record(kind, metric, start, end, value, unit, stored=None, stored_unit=None, source="Apple Watch"):
        xml.append(
            f'<Record type="{kind}" sourceName="{source}" unit="{unit}" creationDate="{apple_time(end)}" '
            f'startDate="{apple_time(start)}" endDate="{apple_time(end)}" value="{value}"/>'
        )
        if metric is not None:
            rows.append((metric, start, end, stored if stored is not None else float(value), stored_unit or unit, source))

    for i in range(days):
        d = FIRST + timedelta(days=i)
        busy = rng.random() < 0.45
        # Heart rate through the day (UTC steps so the DST day has its 25 hours).
        start = local(d, 0).astimezone(ZoneInfo("UTC"))
        end = local(d + timedelta(days=1), 0).astimezone(ZoneInfo("UTC"))
        t = start
        while t < end:
            lt = t.astimezone(TZ)
            base = 58 + 20 * math.sin((lt.hour - 6) / 24 * 2 * math.pi) + (25 if busy and lt.hour == 18 else 0)
            hr = int(round(base + rng.gauss(0, 6)))
            record("HKQuantityTypeIdentifierHeartRate", "heartRate", lt, lt, hr, "count/min")
            t += timedelta(minutes=hr_minutes)
        # Steps by hour while awake.
        for h in range(7, 23):
            n = max(0, int(rng.gauss(900 if busy else 450, 300)))
            record("HKQuantityTypeIdentifierStepCount", "steps", local(d, h), local(d, h, 59, 59), n, "count", source="iPhone")
        ex = int(rng.uniform(65, 110)) if busy else int(rng.uniform(0, 45))
        record("HKQuantityTypeIdentifierAppleExerciseTime", "exerciseMinutes", local(d, 18), local(d, 18) + timedelta(minutes=ex), ex, "min")
        kj = round(rng.uniform(900, 3200), 1)
        record("HKQuantityTypeIdentifierActiveEnergyBurned", "activeEnergyBurned", local(d, 8), local(d, 21), kj, "kJ", stored=kj / 4.184, stored_unit="kcal")
        record("HKQuantityTypeIdentifierRestingHeartRate", "restingHeartRate", local(d, 7), local(d, 7), int(rng.gauss(56, 3)), "count/min")
        record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "hrv", local(d, 6, 30), local(d, 6, 31), round(rng.gauss(48, 9), 3), "ms")
        spo2 = round(rng.uniform(0.94, 0.99), 2)
        record("HKQuantityTypeIdentifierOxygenSaturation", "oxygenSaturation", local(d, 3), local(d, 3), spo2, "%", stored=spo2 * 100, stored_unit="%")
        if d.weekday() == 0:
            lb = round(rng.gauss(172, 2), 1)
            record("HKQuantityTypeIdentifierBodyMass", "weight", local(d, 7, 5), local(d, 7, 5), lb, "lb", stored=lb * 0.45359237, stored_unit="kg", source="Scale")
        # The night that starts this evening: in bed, then stages, some nights after midnight.
        bed = local(d, 22, 30) + timedelta(minutes=rng.randint(-30, 120))
        record("HKCategoryTypeIdentifierSleepAnalysis", None, bed, bed + timedelta(hours=8), "HKCategoryValueSleepAnalysisInBed", "")
        t = bed + timedelta(minutes=10)
        for _ in range(rng.randint(4, 7)):
            stage = rng.choice(ASLEEP + ["HKCategoryValueSleepAnalysisAwake"])
            length = timedelta(minutes=rng.randint(30, 110))
            if stage == "HKCategoryValueSleepAnalysisAwake":
                record("HKCategoryTypeIdentifierSleepAnalysis", None, t, t + length, stage, "")
            else:
                # Elapsed time, not wall-clock time: the night DST ends has an hour more.
                hours = ((t + length).timestamp() - t.timestamp()) / 3600
                xml.append(
                    f'<Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Apple Watch" creationDate="{apple_time(t + length)}" '
                    f'startDate="{apple_time(t)}" endDate="{apple_time(t + length)}" value="{stage}"/>'
                )
                rows.append(("sleep", t, t + length, hours, "h", "Apple Watch"))
            t += length
    # The same export read twice holds some records twice: they count once.
    dup = [x for x in xml if "HeartRate\"" in x][:5]
    xml.extend(dup)
    return xml, rows


def cgm(rng: random.Random, first: date, days: int):
    lines = ["Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID"]
    lines.append("1,,FirstName,,Jane,,,,,,,,,")
    lines.append("2,,Device,,,G7 Mobile App,Android G7,,,,,,,")
    rows, n = [], 3
    for i in range(days):
        d = first + timedelta(days=i)
        spike = rng.random() < 0.4
        for q in range(96):
            t = local(d, q // 4, (q % 4) * 15)
            if t.astimezone(ZoneInfo("UTC")).astimezone(TZ) != t:
                continue
            g = 95 + 15 * math.sin(q / 96 * 2 * math.pi) + (70 * math.exp(-((q - 76) / 4) ** 2) if spike else 0) + rng.gauss(0, 5)
            g = int(round(g))
            value = str(g)
            if i == 3 and q == 10:
                value = "Low"
            elif i == 5 and q == 80:
                value = "High"
            lines.append(f"{n},{t.strftime('%Y-%m-%dT%H:%M:%S')},EGV,,,,Android G7,{value},,,,,,")
            n += 1
            if value.isdigit():
                rows.append(("glucose", t, t, float(g), "mg/dL", "Dexcom"))
        lines.append(f"{n},{local(d, 12).strftime('%Y-%m-%dT%H:%M:%S')},Carbs,,,,,,,45,,,,")
        n += 1
    return "\n".join(lines) + "\n", rows


REPORTS = [
    {"reportType": "dexa", "date": "2024-01-15", "fields": {"totalBodyFatPercent": 27.4, "visceralFatAreaCm2": {"value": 112.0, "unit": "cm2"}, "boneDensityTotal": {"value": 1.182, "unit": "g/cm2"}, "leanMassKg": {"value": 55.1, "unit": "kg"}}},
    {"reportType": "dexa", "date": "2024-06-20", "fields": {"totalBodyFatPercent": 25.1, "visceralFatAreaCm2": {"value": 101.5, "unit": "cm2"}, "boneDensityTotal": {"value": 1.186, "unit": "g/cm2"}, "leanMassKg": {"value": 56.0, "unit": "kg"}}},
    {"reportType": "dexa", "date": "2024-12-10", "fields": {"totalBodyFatPercent": 23.8, "visceralFatAreaCm2": {"value": 94.25, "unit": "cm2"}, "boneDensityTotal": {"value": 1.19, "unit": "g/cm2"}, "leanMassKg": {"value": 56.9, "unit": "kg"}}},
    {"reportType": "bloodwork", "date": "2024-03-02", "fields": {"cholesterol": {"value": 212, "unit": "mg/dL"}, "hdl": {"value": 48, "unit": "mg/dL"}, "ldl": {"value": 141, "unit": "mg/dL"}, "glucose": {"value": 99, "unit": "mg/dL"}, "hba1c": {"value": 5.6, "unit": "%"}}},
    {"reportType": "bloodwork", "date": "2024-11-18", "fields": {"cholesterol": {"value": 188, "unit": "mg/dL"}, "hdl": {"value": 55, "unit": "mg/dL"}, "ldl": {"value": 118, "unit": "mg/dL"}, "glucose": {"value": 93, "unit": "mg/dL"}, "hba1c": {"value": 5.4, "unit": "%"}, "note": "fasting"}},
]

GENERIC = [("2024-12-0{}T07:00:00-08:00".format(i), "bodyTemperature", 97.8 + i / 10, "degF") for i in range(1, 8)]


def frame(rows):
    df = pd.DataFrame(rows, columns=["metric", "start", "end", "value", "unit", "source"])
    df["start"] = pd.to_datetime([t.isoformat() for t in df["start"]], utc=True)
    df["end"] = pd.to_datetime([t.isoformat() for t in df["end"]], utc=True)
    df = df.drop_duplicates(subset=["metric", "start", "end", "value", "source"])
    shift = pd.to_timedelta(np.where(df["metric"] == "sleep", 12, 0), unit="h")
    df["t"] = df["start"] - shift
    df["local"] = df["t"].dt.tz_convert(TZ_NAME)
    return df


def label(local: pd.Series, by: str | None) -> pd.Series:
    if by == "day":
        return local.dt.strftime("%Y-%m-%d")
    if by == "week":
        return (local.dt.tz_localize(None).dt.normalize() - pd.to_timedelta(local.dt.day_of_week, unit="D")).dt.strftime("%Y-%m-%d")
    if by == "month":
        return local.dt.strftime("%Y-%m")
    if by == "hour":
        s = local.dt.strftime("%Y-%m-%dT%H:00%z")
        return s.str[:-2] + ":" + s.str[-2:]
    raise ValueError(by)


def natural(m):
    return "sum" if m in CUMULATIVE else "avg"


def in_range(df, start, end):
    lo, hi = pd.Timestamp(start), pd.Timestamp(end) + pd.Timedelta(days=1)
    day = df["local"].dt.tz_localize(None)
    return df[(day >= lo) & (day < hi)]


def passes(v: pd.Series, op, x):
    return {">": v > x, "<": v < x, "=": v == x, ">=": v >= x, "<=": v <= x, "!=": v != x}[op] if op != "between" else (v >= x[0]) & (v <= x[1])


def series(df, params):
    metrics = params["metrics"]
    by = params.get("groupBy")
    d = df[df["metric"].isin(metrics)]
    if "dateRange" in params:
        d = in_range(d, params["dateRange"]["start"], params["dateRange"]["end"])
    for f in params.get("filters", []):
        m = f.get("metric")
        if m is None:
            d = d[passes(d["value"], f["operator"], f["value"])]
        elif m in metrics:
            d = d[(d["metric"] != m) | passes(d["value"], f["operator"], f["value"])]
        else:
            o = df[df["metric"] == m]
            if "dateRange" in params:
                o = in_range(o, params["dateRange"]["start"], params["dateRange"]["end"])
            key = label(o["local"], by or "day")
            if m in CUMULATIVE:
                ok = o.groupby(key)["value"].sum()
                ok = ok[passes(ok, f["operator"], f["value"])].index
            else:
                hit = passes(o["value"], f["operator"], f["value"])
                ok = key[hit].unique()
            d = d[label(d["local"], by or "day").isin(set(ok))]
    out = []
    agg = params.get("aggregation")
    for m in metrics:
        x = d[d["metric"] == m].sort_values(["start", "end"])
        how = agg or natural(m)
        if by:
            g = x.groupby(label(x["local"], by))["value"]
            vals = {"avg": g.mean(), "sum": g.sum(), "min": g.min(), "max": g.max(), "count": g.count().astype(float)}[how]
            counts = g.count()
            points = [{"time": k, "value": float(vals[k]), "count": int(counts[k])} for k in sorted(vals.index)]
        elif agg:
            # One value over the whole range, labelled with the days it covers.
            days = x["local"].dt.strftime("%Y-%m-%d")
            v = {"avg": x["value"].mean(), "sum": x["value"].sum(), "min": x["value"].min(), "max": x["value"].max(), "count": float(len(x))}[how]
            points = [{"time": f"{days.min()}/{days.max()}", "value": float(v), "count": int(len(x))}] if len(x) else []
        else:
            points = [{"time": t.tz_convert(TZ_NAME).isoformat(), "value": float(v)} for t, v in zip(x["start"], x["value"])]
        out.append({"metric": m, "points": points})
    return {"series": out, "totalRecords": sum(len(s["points"]) for s in out)}


def daily(df, m, start, end):
    x = in_range(df[df["metric"] == m], start, end)
    g = x.groupby(x["local"].dt.strftime("%Y-%m-%d"))["value"]
    return pd.DataFrame({"sum": g.sum(), "avg": g.mean(), "min": g.min(), "max": g.max()})


def correlation(df, params):
    pm, sm = params["primaryMetric"]["metric"], params["secondaryMetric"]["metric"]
    lag = params.get("lagDays", 0)
    r = params["dateRange"]
    a = daily(df, pm, r["start"], r["end"])
    sd = lambda s: (pd.Timestamp(s) + pd.Timedelta(days=lag)).strftime("%Y-%m-%d")
    b = daily(df, sm, sd(r["start"]), sd(r["end"]))
    b.index = [(pd.Timestamp(i) - pd.Timedelta(days=lag)).strftime("%Y-%m-%d") for i in b.index]
    days = sorted(set(a.index) & set(b.index))
    x = a.loc[days, natural(pm)].to_numpy()
    y = b.loc[days, natural(sm)].to_numpy()
    out = {"n": len(days)}
    pr = stats.pearsonr(x, y)
    sr = stats.spearmanr(x, y)
    out["pearson"] = {"r": float(pr.statistic), "p_value": float(pr.pvalue)}
    out["spearman"] = {"rho": float(sr.statistic), "p_value": float(sr.pvalue)}
    f = params["primaryMetric"].get("filter")
    if f:
        col = a.loc[days, "sum"] if pm in CUMULATIVE else a.loc[days, "max" if f["operator"] in (">", ">=") else "min"]
        hit = passes(col, f["operator"], f["value"]).to_numpy()
        on, off = y[hit], y[~hit]
        w = stats.ttest_ind(on, off, equal_var=False)
        out["filter"] = {"matchingDays": int(hit.sum()), "otherDays": int((~hit).sum()),
                         "secondaryAverageMatching": float(on.mean()), "secondaryAverageOther": float(off.mean()),
                         "welch": {"t": float(w.statistic), "p_value": float(w.pvalue)}}
    return out


def cases(df):
    dec = {"start": "2024-12-01", "end": "2024-12-31"}
    out = []
    def q(name, params):
        out.append({"name": name, "tool": "query_timeseries_metrics", "params": params, "expect": series(df, params)})
    for agg in ["avg", "min", "max", "sum", "count"]:
        q(f"heart rate by day in December, {agg}", {"metrics": ["heartRate"], "dateRange": dec, "groupBy": "day", "aggregation": agg})
    q("heart rate by week, default avg", {"metrics": ["heartRate"], "groupBy": "week"})
    q("heart rate by month, max", {"metrics": ["heartRate"], "groupBy": "month", "aggregation": "max"})
    q("heart rate by hour across the end of DST", {"metrics": ["heartRate"], "dateRange": {"start": "2024-11-02", "end": "2024-11-03"}, "groupBy": "hour"})
    q("heart rate by day across the end of DST (a 25-hour day)", {"metrics": ["heartRate"], "dateRange": {"start": "2024-11-01", "end": "2024-11-05"}, "groupBy": "day", "aggregation": "count"})
    for op, v in [(">", 100), ("<", 50), ("=", 72), (">=", 100), ("<=", 50), ("!=", 72), ("between", [60, 80])]:
        q(f"heart rate samples {op} {v}, by day", {"metrics": ["heartRate"], "dateRange": dec, "filters": [{"metric": "heartRate", "operator": op, "value": v}], "groupBy": "day", "aggregation": "count"})
    q("a filter without a metric tests every metric read", {"metrics": ["restingHeartRate"], "filters": [{"operator": "between", "value": [55, 58]}], "groupBy": "month", "aggregation": "count"})
    q("seed 002: heart rate on days I exercised over 60 minutes in December", {"metrics": ["heartRate"], "dateRange": dec, "filters": [{"metric": "exerciseMinutes", "operator": ">", "value": 60}], "groupBy": "day"})
    q("steps on days any heart rate reading was >= 100", {"metrics": ["steps"], "dateRange": {"start": "2024-10-01", "end": "2024-10-31"}, "filters": [{"metric": "heartRate", "operator": ">=", "value": 100}], "groupBy": "day"})
    q("steps by week: sum by default", {"metrics": ["steps"], "groupBy": "week"})
    q("sleep by night (noon to noon), default sum", {"metrics": ["sleep"], "dateRange": {"start": "2024-10-01", "end": "2024-10-31"}, "groupBy": "day"})
    q("two metrics at once, by month", {"metrics": ["activeEnergyBurned", "weight"], "groupBy": "month"})
    q("kJ imported as kcal, lb as kg, fractions as percent", {"metrics": ["activeEnergyBurned", "weight", "oxygenSaturation"], "dateRange": {"start": "2024-12-01", "end": "2024-12-07"}, "groupBy": "day"})
    q("degF imported as degC from a generic CSV", {"metrics": ["bodyTemperature"], "groupBy": "day"})
    q("aggregation without groupBy: one value over the range", {"metrics": ["heartRate", "steps"], "dateRange": dec, "aggregation": "avg"})
    q("raw samples, no grouping", {"metrics": ["restingHeartRate"], "dateRange": {"start": "2024-11-01", "end": "2024-11-10"}})
    q("glucose from the Dexcom export, by day", {"metrics": ["glucose"], "groupBy": "day", "aggregation": "max"})
    q("glucose by hour on one day", {"metrics": ["glucose"], "dateRange": {"start": "2024-12-02", "end": "2024-12-02"}, "groupBy": "hour"})
    def c(name, params):
        out.append({"name": name, "tool": "find_correlations", "params": params, "expect": correlation(df, params)})
    c("steps against sleep that night", {"primaryMetric": {"metric": "steps"}, "secondaryMetric": {"metric": "sleep"}, "dateRange": {"start": "2024-10-01", "end": "2024-12-31"}})
    c("seed 002: when my glucose goes above 140, how does it affect my sleep that night?", {"primaryMetric": {"metric": "glucose", "filter": {"operator": ">", "value": 140}}, "secondaryMetric": {"metric": "sleep"}, "dateRange": {"start": "2024-12-01", "end": "2024-12-30"}})
    c("exercise against the next morning's resting heart rate", {"primaryMetric": {"metric": "exerciseMinutes", "filter": {"operator": ">=", "value": 60}}, "secondaryMetric": {"metric": "restingHeartRate"}, "lagDays": 1, "dateRange": {"start": "2024-10-01", "end": "2024-12-30"}})
    return out


def write_xml(path: Path, xml):
    with path.open("w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE HealthData [\n<!ELEMENT HealthData (ExportDate,Me,Record*)>\n]>\n<HealthData locale="en_US">\n')
        f.write(' <ExportDate value="2025-01-01 09:00:00 -0800"/>\n <Me HKCharacteristicTypeIdentifierDateOfBirth="1985-04-02"/>\n')
        for line in xml:
            f.write(" " + line + "\n")
        f.write("</HealthData>\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", type=Path, help="write a year of minute-level heart rate there instead")
    args = ap.parse_args()
    rng = random.Random(2002)
    if args.bench:
        global FIRST
        FIRST = date(2024, 1, 1)
        args.bench.mkdir(parents=True, exist_ok=True)
        xml, _ = generate(rng, 366, 1)
        write_xml(args.bench / "export.xml", xml)
        text, _ = cgm(rng, date(2024, 1, 1), 366)
        (args.bench / "cgm.csv").write_text(text)
        (args.bench / "reports.json").write_text(json.dumps(REPORTS, indent=1) + "\n")
        return
    out = Path(__file__).resolve().parent.parent / "health"
    out.mkdir(exist_ok=True)
    xml, rows = generate(rng, DAYS, 30)
    write_xml(out / "export.xml", xml)
    text, grows = cgm(rng, date(2024, 12, 1), 30)
    (out / "cgm.csv").write_text(text)
    (out / "body_temperature.csv").write_text("timestamp,metric,value,unit\n" + "".join(f"{t},{m},{v:.1f},{u}\n" for t, m, v, u in GENERIC))
    temps = [("bodyTemperature", datetime.fromisoformat(t), datetime.fromisoformat(t), (round(v, 1) - 32) * 5 / 9, "degC", "") for t, m, v, u in GENERIC]
    (out / "reports.json").write_text(json.dumps(REPORTS, indent=1) + "\n")
    df = frame(rows + grows + temps)
    with (out / "reference.jsonl").open("w") as f:
        for case in cases(df):
            f.write(json.dumps(case) + "\n")
    counts = df.groupby("metric")["value"].count().to_dict()
    (out / "counts.json").write_text(json.dumps({k: int(v) for k, v in sorted(counts.items())}, indent=1) + "\n")


if __name__ == "__main__":
    main()
