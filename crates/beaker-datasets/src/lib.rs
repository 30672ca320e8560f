//! A user's own health data on an embedded analytic engine (Apache DataFusion over Arrow and Parquet).
//!
//! - [`Datasets`]: the data folder (`beaker serve --data DIR`): one subfolder per dataset, each with its
//!   time-series samples (one Parquet file per month) and its reports (DEXA scans, bloodwork panels).
//! - [`DataSource`]: where a dataset's files are read from: [`LocalSource`] (the data folder),
//!   [`ObjectSource`] (an S3-compatible object store, Parquet encrypted with keys from configuration) and
//!   [`HybridSource`] (recent months local, history remote, merged without duplicates).
//! - [`import`]: Apple Health's `export.xml` (streamed), CGM and generic CSV, JSON reports, with units brought
//!   to each metric's unit by the unit engine.
//! - [`query`]: the questions seed 002's tools ask, as DataFusion plans.
//!
//! Invariant: a [`Dataset`] is reached only by its name through [`Datasets::dataset`], which refuses anything
//! but a plain name, so no request can name a path.

mod error;
pub mod import;
pub mod metrics;
pub mod query;
pub mod schema;
mod source;
mod store;
pub mod units;

pub use error::{DataError, Result};
pub use source::{
    DataSource, HybridSource, LocalSource, Month, ObjectConfig, ObjectSource, Span, Store,
};
pub use store::{check_name, parse_tz as store_tz, Dataset, Datasets, Settings};

use serde::{Deserialize, Serialize};

/// How a period's samples become one value (seed 002's `aggregation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Aggregation {
    /// The mean.
    Avg,
    /// The least.
    Min,
    /// The greatest.
    Max,
    /// The total.
    Sum,
    /// How many samples.
    Count,
}

impl Aggregation {
    /// Its name in params and answers.
    pub fn name(self) -> &'static str {
        match self {
            Aggregation::Avg => "avg",
            Aggregation::Min => "min",
            Aggregation::Max => "max",
            Aggregation::Sum => "sum",
            Aggregation::Count => "count",
        }
    }
}

/// A calendar period in the dataset's time zone (seed 002's `groupBy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// A clock hour.
    Hour,
    /// A calendar day (a night, noon to noon, for sleep).
    Day,
    /// An ISO week, Monday to Sunday.
    Week,
    /// A calendar month.
    Month,
}

impl Period {
    /// Its name in params and answers (and DataFusion's `date_trunc` unit).
    pub fn name(self) -> &'static str {
        match self {
            Period::Hour => "hour",
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
        }
    }
}

/// A comparison (seed 002's filter `operator`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Condition {
    /// `>`
    Gt(f64),
    /// `<`
    Lt(f64),
    /// `=`
    Eq(f64),
    /// `>=`
    Ge(f64),
    /// `<=`
    Le(f64),
    /// `!=`
    Ne(f64),
    /// `between`: both ends included.
    Between(f64, f64),
}

impl Condition {
    /// Whether `x` meets it.
    pub fn holds(self, x: f64) -> bool {
        match self {
            Condition::Gt(v) => x > v,
            Condition::Lt(v) => x < v,
            Condition::Eq(v) => x == v,
            Condition::Ge(v) => x >= v,
            Condition::Le(v) => x <= v,
            Condition::Ne(v) => x != v,
            Condition::Between(a, b) => a <= x && x <= b,
        }
    }
}
