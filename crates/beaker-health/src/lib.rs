//! Seed 002's health-data tools over the call's dataset: `query_timeseries_metrics`, `get_latest_report`,
//! `compare_reports`, `find_correlations` and `get_data_summary`, with seed 002's names, parameters and enums.
//!
//! A call reads the dataset its request names (`"dataset"`, or the one its token is bound to) from the data
//! folder the server was started with (`--data DIR`), and nothing else: the dataset is never a tool param, so
//! a model cannot ask for another one. Queries run on DataFusion (`beaker-datasets`); correlations and their
//! p-values come from the `statistics` tool, injected by the catalog.

mod input;
mod reports;
mod series;
mod spec;
#[cfg(test)]
mod tests;

use beaker_core::{CallContext, ErrorKind, Tool, ToolError, ToolSpec};
use beaker_datasets::query::Catalog;
use beaker_datasets::{DataError, Dataset, Datasets};
use serde_json::Value;
use std::sync::Arc;

/// Every tool of the family over `data` (none: each call says how to start the server with a data folder),
/// with `statistics` answering correlation and t-test questions.
pub fn tools(data: Option<Arc<Datasets>>, statistics: Arc<dyn Tool>) -> Vec<Arc<dyn Tool>> {
    let h = || Health {
        data: data.clone(),
        statistics: statistics.clone(),
    };
    vec![
        Arc::new(QueryTimeseries(spec::query_timeseries_metrics(), h())),
        Arc::new(LatestReport(spec::get_latest_report(), h())),
        Arc::new(CompareReports(spec::compare_reports(), h())),
        Arc::new(FindCorrelations(spec::find_correlations(), h())),
        Arc::new(DataSummary(spec::get_data_summary(), h())),
    ]
}

/// What every tool of the family holds.
#[derive(Clone)]
pub(crate) struct Health {
    data: Option<Arc<Datasets>>,
    statistics: Arc<dyn Tool>,
}

/// The call's dataset, opened: where it is, what it holds, and the time zone its dates are read in.
pub(crate) struct Opened {
    pub data: Arc<Datasets>,
    pub dataset: Dataset,
    pub catalog: Catalog,
}

impl Health {
    /// Opens the call's dataset (in `time_zone` when given, else the dataset's own).
    pub(crate) fn open(
        &self,
        ctx: &CallContext,
        time_zone: Option<&str>,
    ) -> Result<Opened, ToolError> {
        let Some(data) = &self.data else {
            return Err(ToolError::new(
                ErrorKind::ToolError,
                "no data folder: start Beaker with `--data DIR` (fill it with `beaker data import --data DIR --dataset NAME FILE...`)",
            ));
        };
        let Some(name) = ctx.dataset.as_deref() else {
            return Err(ToolError::invalid_params(
                "no dataset named: the request names the dataset it reads, beside the tool (`{\"dataset\": \"NAME\", \"tool\": ..., \"params\": ...}`; over MCP, _meta[\"beaker/dataset\"])",
            ));
        };
        let mut dataset = data.dataset(name).map_err(error)?;
        if let Some(tz) = time_zone {
            let tz = beaker_datasets::store_tz(tz).map_err(error)?;
            dataset = dataset.in_time_zone(tz);
        }
        let catalog = beaker_datasets::import::read_catalog(&dataset).map_err(error)?;
        Ok(Opened {
            data: data.clone(),
            dataset,
            catalog,
        })
    }

    /// Reserves from the process's memory budget what a question about `dates` may take while it works on the
    /// months it reads; held until the returned reservation drops.
    pub(crate) fn reserve(
        &self,
        o: &Opened,
        dates: Option<(chrono::NaiveDate, chrono::NaiveDate)>,
        ctx: &CallContext,
    ) -> Result<beaker_core::Reservation, ToolError> {
        let stored = o
            .data
            .block_on(beaker_datasets::query::bytes_read(&o.dataset, dates))
            .map_err(error)?;
        ctx.reserve_memory(
            stored.saturating_mul(beaker_datasets::query::WORKING_PER_STORED_BYTE),
            "the months this question reads",
        )
    }

    /// Runs the `statistics` tool.
    pub(crate) fn statistics(&self, params: Value, ctx: &CallContext) -> Result<Value, ToolError> {
        self.statistics.call(&params, ctx)
    }
}

/// A data-layer error as the envelope reports it.
pub(crate) fn error(e: DataError) -> ToolError {
    match e {
        DataError::Invalid(m) | DataError::NoDataset(m) => ToolError::invalid_params(m),
        DataError::Import(m) => ToolError::new(ErrorKind::ToolError, m),
        // A file that cannot be read (corrupt, or sealed under another key) is not the caller's doing.
        e @ (DataError::Io { .. } | DataError::Parquet(_)) => {
            ToolError::new(ErrorKind::ToolError, e.to_string())
        }
        e @ DataError::Engine(_) => ToolError::new(ErrorKind::Internal, e.to_string()),
    }
}

/// `query_timeseries_metrics`: time-series metrics in a date range, filtered, grouped by calendar periods.
pub struct QueryTimeseries(ToolSpec, Health);
/// `get_latest_report`: the most recent DEXA scan or bloodwork panel.
pub struct LatestReport(ToolSpec, Health);
/// `compare_reports`: DEXA scans or bloodwork panels side by side, with the changes between them.
pub struct CompareReports(ToolSpec, Health);
/// `find_correlations`: how two metrics move together day by day, and a secondary metric on the days a
/// primary one passes a threshold.
pub struct FindCorrelations(ToolSpec, Health);
/// `get_data_summary`: what the dataset holds: metrics, counts, units and the days they cover.
pub struct DataSummary(ToolSpec, Health);

macro_rules! tool {
    ($t:ident, $f:path) => {
        impl Tool for $t {
            fn spec(&self) -> &ToolSpec {
                &self.0
            }

            fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
                $f(&self.1, params, ctx)
            }
        }
    };
}

tool!(QueryTimeseries, series::query);
tool!(LatestReport, reports::latest);
tool!(CompareReports, reports::compare);
tool!(FindCorrelations, series::correlations);
tool!(DataSummary, series::summary);
