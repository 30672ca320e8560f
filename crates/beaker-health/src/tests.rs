use crate::input::{condition, date_range, day, DateRange};
use beaker_datasets::query::{Catalog, MetricInfo};
use beaker_datasets::Condition;
use serde_json::json;

#[test]
fn operators_read_as_seed_002_writes_them() {
    assert_eq!(
        condition(">", &json!(100), "f").ok(),
        Some(Condition::Gt(100.0))
    );
    assert_eq!(
        condition("!=", &json!(72.5), "f").ok(),
        Some(Condition::Ne(72.5))
    );
    assert_eq!(
        condition("between", &json!([60, 80]), "f").ok(),
        Some(Condition::Between(60.0, 80.0))
    );
    for (op, v) in [
        ("between", json!(5)),
        ("between", json!([80, 60])),
        ("between", json!(["a", 1])),
        (">", json!([1, 2])),
        ("~", json!(1)),
    ] {
        let e = condition(op, &v, "filters[0]").expect_err("refused");
        assert!(e.message.contains("filters[0]"), "{}", e.message);
    }
}

#[test]
fn dates_are_days_in_the_time_zone() {
    let la: chrono_tz::Tz = "America/Los_Angeles".parse().expect("a zone");
    assert_eq!(
        day("2024-12-01", "k", la).ok(),
        chrono::NaiveDate::from_ymd_opt(2024, 12, 1)
    );
    // 02:00 UTC on Dec 2 is still Dec 1 in Los Angeles.
    assert_eq!(
        day("2024-12-02T02:00:00Z", "k", la).ok(),
        chrono::NaiveDate::from_ymd_opt(2024, 12, 1)
    );
    assert!(day("12/01/2024", "k", la).is_err());
    let mut catalog = Catalog::default();
    catalog.metrics.insert(
        "steps".into(),
        MetricInfo {
            unit: "count".into(),
            data_type: "csv".into(),
            samples: 1,
            first: 0,
            last: 86_400_000_000 * 10,
        },
    );
    let r = |s: Option<&str>, e: Option<&str>| DateRange {
        start: s.map(Into::into),
        end: e.map(Into::into),
    };
    assert!(date_range(
        Some(&r(Some("2024-12-31"), Some("2024-12-01"))),
        la,
        &catalog
    )
    .is_err());
    // A missing end runs to the last data.
    let open = date_range(Some(&r(Some("1970-01-02"), None)), la, &catalog)
        .expect("reads")
        .expect("a range");
    assert_eq!(
        open.1,
        chrono::NaiveDate::from_ymd_opt(1970, 1, 10).expect("a day")
    );
}
