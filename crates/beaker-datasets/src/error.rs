//! Why a dataset could not be read, written or queried.

/// An error from the data layer; the tools map each kind to the envelope's `error_kind`.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The caller asked for something that is not there or not valid (a dataset, a metric, a field, a date).
    #[error("{0}")]
    Invalid(String),
    /// No dataset of that name is in the data folder (the message lists the ones that are, when the caller may
    /// see them).
    #[error("{0}")]
    NoDataset(String),
    /// An imported file could not be read (the message names the file and the line or record).
    #[error("{0}")]
    Import(String),
    /// Reading or writing the data folder or the object store failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The operating system's or the store's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The query engine failed (a bug or a corrupt file, never the caller's input).
    #[error("query engine: {0}")]
    Engine(#[from] datafusion::error::DataFusionError),
    /// A month or reports file could not be read or written as Parquet (a corrupt file, or the wrong data key).
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
}

impl DataError {
    /// An IO error with what was being done.
    pub fn io(
        context: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        DataError::Io {
            context: context.into(),
            source: Box::new(source),
        }
    }
}

impl From<datafusion::arrow::error::ArrowError> for DataError {
    fn from(e: datafusion::arrow::error::ArrowError) -> Self {
        DataError::Engine(e.into())
    }
}

/// The data layer's results.
pub type Result<T, E = DataError> = std::result::Result<T, E>;
