//! Where a dataset's files are read from: one [`DataSource`] interface, three implementations.

use crate::schema;
use crate::{DataError, Result};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::encryption::decrypt::FileDecryptionProperties;
use datafusion::parquet::encryption::encrypt::FileEncryptionProperties;
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::prelude::{DataFrame, ParquetReadOptions, SessionContext};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as StorePath;
use object_store::{GetOptions, ObjectStore, PutOptions, PutPayload};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

/// A future a [`DataSource`] returns.
pub type Fut<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// A span of time, in microseconds since the Unix epoch (UTC): `lo` included, `hi` excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First instant in it.
    pub lo: i64,
    /// First instant after it.
    pub hi: i64,
}

impl Span {
    /// All time.
    pub const ALL: Span = Span {
        lo: i64::MIN,
        hi: i64::MAX,
    };

    /// Whether it meets `[lo, hi)`.
    pub fn meets(&self, lo: i64, hi: i64) -> bool {
        lo < self.hi && hi > self.lo
    }
}

/// One month a store holds: its name (`2024-12`) and the bytes of its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Month {
    /// The UTC month, `YYYY-MM`.
    pub name: String,
    /// The size of its Parquet file (both files' when a hybrid holds it twice).
    pub bytes: u64,
}

impl Month {
    /// The month a file named `YYYY-MM.parquet` holds (`None` for any other name).
    fn of(file_name: &str, bytes: u64) -> Option<Month> {
        let month = file_name.strip_suffix(".parquet")?;
        schema::month_span(month)?;
        Some(Month {
            name: month.to_string(),
            bytes,
        })
    }
}

/// Where a dataset's months of samples are kept: the one interface every store implements, as seed 002's
/// `DataSource` is. A month is a Parquet file of the samples whose `start` falls in that UTC month
/// (`YYYY-MM`), sorted by metric and time, without duplicates.
pub trait DataSource: Send + Sync {
    /// `local`, `object_store` or `hybrid`: what answers say the data came from.
    fn name(&self) -> &'static str;

    /// The months it holds, sorted.
    fn months(&self) -> Fut<'_, Vec<Month>>;

    /// One month's samples (`None` when it holds no such month).
    fn read_month<'a>(&'a self, month: &'a str) -> Fut<'a, Option<Vec<RecordBatch>>>;

    /// Writes one month's samples, replacing what it held for that month.
    fn write_month<'a>(&'a self, month: &'a str, batches: &'a [RecordBatch]) -> Fut<'a, ()>;

    /// The samples of the months meeting `span`, as one table in `ctx` (`None`: no month meets it). A source
    /// that holds the same sample twice (a hybrid during a move) answers it once.
    fn samples<'a>(&'a self, ctx: &'a SessionContext, span: Span) -> Fut<'a, Option<DataFrame>> {
        Box::pin(async move {
            let mut batches = Vec::new();
            for month in self.months().await? {
                if let Some((lo, hi)) = schema::month_span(&month.name) {
                    if span.meets(lo, hi) {
                        if let Some(b) = self.read_month(&month.name).await? {
                            batches.extend(b);
                        }
                    }
                }
            }
            if batches.is_empty() {
                return Ok(None);
            }
            let table = MemTable::try_new(schema::samples(), vec![batches])?;
            Ok(Some(ctx.read_table(Arc::new(table))?))
        })
    }
}

/// A dataset's folder on this machine: `samples/YYYY-MM.parquet`, read by DataFusion's Parquet reader.
#[derive(Debug, Clone)]
pub struct LocalSource {
    dir: PathBuf,
}

impl LocalSource {
    /// The dataset folder `dir`.
    pub fn new(dir: PathBuf) -> LocalSource {
        LocalSource { dir }
    }

    fn month_path(&self, month: &str) -> PathBuf {
        self.dir.join("samples").join(format!("{month}.parquet"))
    }
}

impl DataSource for LocalSource {
    fn name(&self) -> &'static str {
        "local"
    }

    fn months(&self) -> Fut<'_, Vec<Month>> {
        Box::pin(async move {
            let mut out: Vec<Month> = std::fs::read_dir(self.dir.join("samples"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| {
                    Month::of(&e.file_name().into_string().ok()?, e.metadata().ok()?.len())
                })
                .collect();
            out.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(out)
        })
    }

    fn read_month<'a>(&'a self, month: &'a str) -> Fut<'a, Option<Vec<RecordBatch>>> {
        Box::pin(async move {
            let path = self.month_path(month);
            if !path.is_file() {
                return Ok(None);
            }
            let file = std::fs::File::open(&path)
                .map_err(|e| DataError::io(format!("cannot open {}", path.display()), e))?;
            let reader = ParquetRecordBatchReaderBuilder::try_new(file)?.build()?;
            let batches = reader.collect::<std::result::Result<Vec<_>, _>>()?;
            Ok(Some(batches))
        })
    }

    fn write_month<'a>(&'a self, month: &'a str, batches: &'a [RecordBatch]) -> Fut<'a, ()> {
        Box::pin(async move {
            let bytes = encode(batches, None)?;
            let path = self.month_path(month);
            write_atomically(&path, &bytes)
        })
    }

    fn samples<'a>(&'a self, ctx: &'a SessionContext, span: Span) -> Fut<'a, Option<DataFrame>> {
        Box::pin(async move {
            let paths: Vec<String> = self
                .months()
                .await?
                .into_iter()
                .filter(|m| schema::month_span(&m.name).is_some_and(|(lo, hi)| span.meets(lo, hi)))
                .map(|m| self.month_path(&m.name).to_string_lossy().into_owned())
                .collect();
            if paths.is_empty() {
                return Ok(None);
            }
            let options = ParquetReadOptions::default().schema(&schema::SAMPLES);
            Ok(Some(ctx.read_parquet(paths, options).await?))
        })
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, so a reader never sees half a file.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("parquet.tmp");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| DataError::io(format!("cannot make {}", parent.display()), e))?;
    }
    std::fs::write(&tmp, bytes)
        .map_err(|e| DataError::io(format!("cannot write {}", tmp.display()), e))?;
    std::fs::rename(&tmp, path)
        .map_err(|e| DataError::io(format!("cannot write {}", path.display()), e))
}

/// Parquet bytes of `batches` (Snappy-compressed: a zstd reader's contexts cost more to make than a month's
/// pages cost to decode), encrypted with `key` when given (Parquet modular encryption:
/// AES-GCM over the footer and every page). Samples (sorted by metric) get a row group per metric, so a
/// question about steps skips the heart rate's pages by the row groups' statistics.
pub(crate) fn encode(batches: &[RecordBatch], key: Option<&[u8]>) -> Result<Vec<u8>> {
    let mut props = WriterProperties::builder()
        .set_compression(datafusion::parquet::basic::Compression::SNAPPY);
    if let Some(key) = key {
        props = props.with_file_encryption_properties(
            FileEncryptionProperties::builder(key.to_vec()).build()?,
        );
    }
    let schema = batches.first().map_or_else(schema::samples, |b| b.schema());
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, schema, Some(props.build()))?;
    for b in batches {
        let Some(metric) = b.column_by_name("metric").and_then(|c| {
            c.as_any()
                .downcast_ref::<datafusion::arrow::array::StringArray>()
        }) else {
            writer.write(b)?;
            continue;
        };
        let mut start = 0;
        for i in 1..=b.num_rows() {
            if i == b.num_rows() || metric.value(i) != metric.value(start) {
                writer.write(&b.slice(start, i - start))?;
                writer.flush()?;
                start = i;
            }
        }
    }
    writer.close()?;
    Ok(out)
}

/// Record batches from Parquet `bytes`, decrypted with `key` when given.
pub(crate) fn decode(bytes: Vec<u8>, key: Option<&[u8]>) -> Result<Vec<RecordBatch>> {
    let mut options = ArrowReaderOptions::new();
    if let Some(key) = key {
        options = options.with_file_decryption_properties(
            FileDecryptionProperties::builder(key.to_vec()).build()?,
        );
    }
    let reader =
        ParquetRecordBatchReaderBuilder::try_new_with_options(bytes::Bytes::from(bytes), options)?
            .build()?;
    Ok(reader.collect::<std::result::Result<Vec<_>, _>>()?)
}

/// An S3-compatible object store and the key its files are encrypted with (`[data.object_store]`).
#[derive(Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectConfig {
    /// The endpoint (`https://gateway.storjshare.io`, or a local MinIO or moto server).
    pub endpoint: String,
    /// The bucket.
    pub bucket: String,
    /// A folder inside the bucket under which each dataset has its own (default: none).
    #[serde(default)]
    pub prefix: String,
    /// The region the store signs requests for (`us-east-1` when it has none of its own).
    #[serde(default = "default_region")]
    pub region: String,
    /// The environment variable holding the access key id.
    pub access_key_env: String,
    /// The environment variable holding the secret access key.
    pub secret_key_env: String,
    /// The environment variable holding the data key: 32 bytes (AES-256), or 16 or 24, as hex. Every file is
    /// written with Parquet modular encryption under it; the store never sees a plaintext byte.
    pub key_env: String,
}

fn default_region() -> String {
    "us-east-1".into()
}

impl std::fmt::Debug for ObjectConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectConfig")
            .field("endpoint", &self.endpoint)
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .finish()
    }
}

/// A dataset's months in an S3-compatible object store (Storj through its S3 gateway), each an encrypted
/// Parquet file `PREFIX/DATASET/samples/YYYY-MM.parquet`.
pub struct ObjectSource {
    store: Arc<Store>,
    folder: StorePath,
}

/// A configured object store: its client (one per process, so connections are reused) and the data key.
pub struct Store {
    client: AmazonS3,
    prefix: String,
    key: Vec<u8>,
}

impl Store {
    /// The store `config` names; an error names the setting or variable that is missing.
    pub fn new(config: &ObjectConfig) -> Result<Store> {
        let var = |v: &str| {
            std::env::var(v).map_err(|_| {
                DataError::Invalid(format!(
                    "[data.object_store]: environment variable {v} is not set"
                ))
            })
        };
        let key = parse_key(var(&config.key_env)?.trim())?;
        let client = AmazonS3Builder::new()
            .with_endpoint(&config.endpoint)
            .with_allow_http(config.endpoint.starts_with("http://"))
            .with_bucket_name(&config.bucket)
            .with_region(&config.region)
            .with_access_key_id(var(&config.access_key_env)?)
            .with_secret_access_key(var(&config.secret_key_env)?)
            .build()
            .map_err(|e| DataError::Invalid(format!("[data.object_store]: {e}")))?;
        Ok(Store {
            client,
            prefix: config.prefix.trim_matches('/').to_string(),
            key,
        })
    }
}

impl ObjectSource {
    /// Dataset `name`'s folder in `store`.
    pub fn new(store: Arc<Store>, name: &str) -> ObjectSource {
        let folder = if store.prefix.is_empty() {
            format!("{name}/samples")
        } else {
            format!("{}/{name}/samples", store.prefix)
        };
        ObjectSource {
            store,
            folder: StorePath::from(folder),
        }
    }

    fn month_path(&self, month: &str) -> StorePath {
        self.folder.clone().join(format!("{month}.parquet"))
    }
}

/// A data key written as hex: 16, 24 or 32 bytes.
fn parse_key(hex: &str) -> Result<Vec<u8>> {
    let bad = || {
        DataError::Invalid(
            "the data key must be 32, 48 or 64 hex digits (AES-128, -192 or -256)".into(),
        )
    };
    if !matches!(hex.len(), 32 | 48 | 64) || !hex.is_ascii() {
        return Err(bad());
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad()))
        .collect()
}

fn store_error(context: String) -> impl FnOnce(object_store::Error) -> DataError {
    move |e| DataError::io(context, e)
}

impl DataSource for ObjectSource {
    fn name(&self) -> &'static str {
        "object_store"
    }

    fn months(&self) -> Fut<'_, Vec<Month>> {
        Box::pin(async move {
            let listed = self
                .store
                .client
                .list_with_delimiter(Some(&self.folder))
                .await
                .map_err(store_error(format!("cannot list {}", self.folder)))?;
            let mut out: Vec<Month> = listed
                .objects
                .iter()
                .filter_map(|o| Month::of(o.location.filename()?, o.size))
                .collect();
            out.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(out)
        })
    }

    fn read_month<'a>(&'a self, month: &'a str) -> Fut<'a, Option<Vec<RecordBatch>>> {
        Box::pin(async move {
            let path = self.month_path(month);
            let got = match self
                .store
                .client
                .get_opts(&path, GetOptions::default())
                .await
            {
                Ok(g) => g,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(DataError::io(format!("cannot read {path}"), e)),
            };
            let bytes = got
                .bytes()
                .await
                .map_err(store_error(format!("cannot read {path}")))?;
            decode(bytes.to_vec(), Some(&self.store.key)).map(Some)
        })
    }

    fn write_month<'a>(&'a self, month: &'a str, batches: &'a [RecordBatch]) -> Fut<'a, ()> {
        Box::pin(async move {
            let bytes = encode(batches, Some(&self.store.key))?;
            let path = self.month_path(month);
            self.store
                .client
                .put_opts(&path, PutPayload::from(bytes), PutOptions::default())
                .await
                .map_err(store_error(format!("cannot write {path}")))?;
            Ok(())
        })
    }
}

/// Recent months in the dataset's folder, older ones in the object store (seed 002's `HybridDataSource`): a
/// month that ended more than `local_days` ago is history. Reads take each month from wherever it is and,
/// when a month is in both (moved but not yet removed), merge the two without duplicates.
pub struct HybridSource {
    local: LocalSource,
    remote: ObjectSource,
    local_days: u32,
}

impl HybridSource {
    /// `local` for recent months, `remote` for history.
    pub fn new(local: LocalSource, remote: ObjectSource, local_days: u32) -> HybridSource {
        HybridSource {
            local,
            remote,
            local_days,
        }
    }

    /// Whether `month` is history (ended more than `local_days` before now).
    fn is_history(&self, month: &str) -> bool {
        let now = chrono::Utc::now().timestamp_micros();
        let split = now - i64::from(self.local_days) * 86_400_000_000;
        schema::month_span(month).is_some_and(|(_, hi)| hi <= split)
    }
}

impl DataSource for HybridSource {
    fn name(&self) -> &'static str {
        "hybrid"
    }

    fn months(&self) -> Fut<'_, Vec<Month>> {
        Box::pin(async move {
            let mut out = self.local.months().await?;
            out.extend(self.remote.months().await?);
            out.sort_by(|a, b| a.name.cmp(&b.name));
            // A month in both places is read from both.
            out.dedup_by(|later, kept| {
                let same = later.name == kept.name;
                if same {
                    kept.bytes += later.bytes;
                }
                same
            });
            Ok(out)
        })
    }

    fn read_month<'a>(&'a self, month: &'a str) -> Fut<'a, Option<Vec<RecordBatch>>> {
        Box::pin(async move {
            let local = self.local.read_month(month).await?;
            let remote = self.remote.read_month(month).await?;
            Ok(match (local, remote) {
                (None, r) => r,
                (l, None) => l,
                (Some(mut l), Some(r)) => {
                    l.extend(r);
                    Some(schema::dedup(l)?)
                }
            })
        })
    }

    fn write_month<'a>(&'a self, month: &'a str, batches: &'a [RecordBatch]) -> Fut<'a, ()> {
        Box::pin(async move {
            if self.is_history(month) {
                self.remote.write_month(month, batches).await?;
                // The month now lives remotely only: a stale local copy would be merged back in forever.
                let stale = self.local.month_path(month);
                if stale.is_file() {
                    std::fs::remove_file(&stale).map_err(|e| {
                        DataError::io(format!("cannot remove {}", stale.display()), e)
                    })?;
                }
                Ok(())
            } else {
                self.local.write_month(month, batches).await
            }
        })
    }
}
