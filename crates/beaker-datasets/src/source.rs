//! Where a dataset's files are read from: one [`DataSource`] interface, three implementations.

use crate::schema;
use crate::{DataError, Result};
use datafusion::arrow::array::{ArrayRef, BooleanArray, StringArray};
use datafusion::arrow::compute::filter_record_batch;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::prelude::{DataFrame, SessionContext};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as StorePath;
use object_store::{GetOptions, ObjectStore, PutOptions, PutPayload};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::encryption::decrypt::FileDecryptionProperties;
use parquet::encryption::encrypt::FileEncryptionProperties;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::ChunkReader;
use parquet::file::statistics::Statistics;
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
    /// Whether its UTC month meets `span`.
    pub fn meets(&self, span: Span) -> bool {
        schema::month_span(&self.name).is_some_and(|(lo, hi)| span.meets(lo, hi))
    }

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

    /// One month's samples of `metrics` only, as [`schema::MEASUREMENTS`] batches (`None` when it holds no such
    /// month). The default reads the whole month and keeps those rows; the stores read only the row groups
    /// those metrics are in.
    fn read_measurements<'a>(
        &'a self,
        month: &'a str,
        metrics: &'a [String],
    ) -> Fut<'a, Option<Vec<RecordBatch>>> {
        Box::pin(async move {
            match self.read_month(month).await? {
                Some(batches) => Ok(Some(select(&batches, metrics)?)),
                None => Ok(None),
            }
        })
    }

    /// The samples of the months meeting `span`, every column, as one table in `ctx` (`None`: no month meets
    /// it). A source that holds the same sample twice (a hybrid during a move) answers it once.
    fn samples<'a>(&'a self, ctx: &'a SessionContext, span: Span) -> Fut<'a, Option<DataFrame>> {
        Box::pin(async move {
            let mut batches = Vec::new();
            for month in self.months().await? {
                if month.meets(span) {
                    if let Some(b) = self.read_month(&month.name).await? {
                        batches.extend(b);
                    }
                }
            }
            table(ctx, schema::samples(), batches)
        })
    }

    /// The samples of `metrics` in the months meeting `span`, as one [`schema::MEASUREMENTS`] table in `ctx`
    /// (`None`: no month meets it): what questions read.
    fn measurements<'a>(
        &'a self,
        ctx: &'a SessionContext,
        span: Span,
        metrics: &'a [String],
    ) -> Fut<'a, Option<DataFrame>> {
        Box::pin(async move {
            let mut batches = Vec::new();
            for month in self.months().await? {
                if month.meets(span) {
                    if let Some(b) = self.read_measurements(&month.name, metrics).await? {
                        batches.extend(b);
                    }
                }
            }
            table(ctx, schema::measurements(), batches)
        })
    }
}

/// `batches` as a table in `ctx` (`None` when there are none: no month met the question).
fn table(
    ctx: &SessionContext,
    schema: datafusion::arrow::datatypes::SchemaRef,
    batches: Vec<RecordBatch>,
) -> Result<Option<DataFrame>> {
    if batches.is_empty() {
        return Ok(None);
    }
    let table = MemTable::try_new(schema, vec![batches])?;
    Ok(Some(ctx.read_table(Arc::new(table))?))
}

/// The rows of `metrics` among samples `batches`, as [`schema::MEASUREMENTS`] batches.
pub(crate) fn select(batches: &[RecordBatch], metrics: &[String]) -> Result<Vec<RecordBatch>> {
    let mut out = Vec::new();
    for b in batches {
        let names = schema::column::<StringArray>(b, "metric")?;
        let keep: BooleanArray = names
            .iter()
            .map(|m| Some(m.is_some_and(|m| metrics.iter().any(|x| x == m))))
            .collect();
        let columns = schema::MEASUREMENTS
            .fields()
            .iter()
            .map(|f| b.schema().index_of(f.name()))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let kept = filter_record_batch(&b.project(&columns)?, &keep)?;
        if kept.num_rows() > 0 {
            // The measurements' own schema, whatever metadata the file's carried.
            out.push(RecordBatch::try_new(
                schema::measurements(),
                kept.columns().to_vec(),
            )?);
        }
    }
    Ok(out)
}

/// What a row group's statistics say of its `metric` column.
enum Group<'a> {
    /// Every row is this metric, which the question reads.
    Only(&'a str),
    /// No row is a metric the question reads.
    Skip,
    /// Rows of several metrics, or no exact statistics: read it all and look.
    Mixed,
}

fn group<'a>(stats: Option<&'a Statistics>, metrics: &[String]) -> Group<'a> {
    let Some(s) = stats.filter(|s| s.min_is_exact() && s.max_is_exact()) else {
        return Group::Mixed;
    };
    let (Some(lo), Some(hi)) = (s.min_bytes_opt(), s.max_bytes_opt()) else {
        return Group::Mixed;
    };
    // Parquet orders UTF-8 statistics as unsigned bytes, as `[u8]` compares.
    let inside = |m: &String| lo <= m.as_bytes() && m.as_bytes() <= hi;
    if !metrics.iter().any(inside) {
        Group::Skip
    } else if lo == hi {
        std::str::from_utf8(lo).map_or(Group::Mixed, Group::Only)
    } else {
        Group::Mixed
    }
}

/// The samples of `metrics` in one month's Parquet file, as [`schema::MEASUREMENTS`] batches, reading only the
/// row groups they are in (the writer makes one per metric) and, in a group of one metric, not its `metric`
/// column. `open` gives the file again for each reader.
fn read_file_measurements<R: ChunkReader + 'static>(
    open: impl Fn() -> Result<R>,
    key: Option<&[u8]>,
    metrics: &[String],
) -> Result<Vec<RecordBatch>> {
    let meta = ArrowReaderMetadata::load(&open()?, reader_options(key)?)?;
    let file = meta.metadata().clone();
    let descr = file.file_metadata().schema_descr();
    let leaf = |name: &str| {
        descr
            .columns()
            .iter()
            .position(|c| c.name() == name)
            .ok_or_else(|| DataError::Invalid(format!("a month file without a {name} column")))
    };
    let (metric, start, end, value) = (
        leaf("metric")?,
        leaf("start")?,
        leaf("end")?,
        leaf("value")?,
    );
    let reader = |groups: Vec<usize>, leaves: Vec<usize>| -> Result<_> {
        Ok(
            ParquetRecordBatchReaderBuilder::new_with_metadata(open()?, meta.clone())
                .with_row_groups(groups)
                .with_projection(ProjectionMask::leaves(descr, leaves))
                .with_batch_size(8192)
                .build()?,
        )
    };
    let mut out = Vec::new();
    let mut mixed = Vec::new();
    for (i, rg) in file.row_groups().iter().enumerate() {
        match group(rg.column(metric).statistics(), metrics) {
            Group::Skip => {}
            Group::Mixed => mixed.push(i),
            Group::Only(name) => {
                for b in reader(vec![i], vec![start, end, value])? {
                    let b = b?;
                    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
                        std::iter::repeat_n(name, b.num_rows()),
                    ));
                    let mut columns = vec![names];
                    for f in ["start", "end", "value"] {
                        columns.push(Arc::clone(schema::column_ref(&b, f)?));
                    }
                    out.push(RecordBatch::try_new(schema::measurements(), columns)?);
                }
            }
        }
    }
    if !mixed.is_empty() {
        let batches = reader(mixed, vec![metric, start, end, value])?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        out.extend(select(&batches, metrics)?);
    }
    Ok(out)
}

/// A dataset's folder on this machine: `samples/YYYY-MM.parquet`, read with the `parquet` crate.
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

    fn read_measurements<'a>(
        &'a self,
        month: &'a str,
        metrics: &'a [String],
    ) -> Fut<'a, Option<Vec<RecordBatch>>> {
        Box::pin(async move {
            let path = self.month_path(month);
            if !path.is_file() {
                return Ok(None);
            }
            let open = || {
                std::fs::File::open(&path)
                    .map_err(|e| DataError::io(format!("cannot open {}", path.display()), e))
            };
            read_file_measurements(open, None, metrics).map(Some)
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
    let mut props =
        WriterProperties::builder().set_compression(parquet::basic::Compression::SNAPPY);
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

/// How a month file is read: decrypted with `key` when given.
fn reader_options(key: Option<&[u8]>) -> Result<ArrowReaderOptions> {
    let options = ArrowReaderOptions::new();
    Ok(match key {
        Some(key) => options.with_file_decryption_properties(
            FileDecryptionProperties::builder(key.to_vec()).build()?,
        ),
        None => options,
    })
}

/// Record batches from Parquet `bytes`, decrypted with `key` when given.
pub(crate) fn decode(bytes: bytes::Bytes, key: Option<&[u8]>) -> Result<Vec<RecordBatch>> {
    let reader =
        ParquetRecordBatchReaderBuilder::try_new_with_options(bytes, reader_options(key)?)?
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

    /// The bytes of one month's file (`None`: there is none).
    async fn get(&self, month: &str) -> Result<Option<bytes::Bytes>> {
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
        got.bytes()
            .await
            .map(Some)
            .map_err(store_error(format!("cannot read {path}")))
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
            match self.get(month).await? {
                Some(bytes) => decode(bytes, Some(&self.store.key)).map(Some),
                None => Ok(None),
            }
        })
    }

    fn read_measurements<'a>(
        &'a self,
        month: &'a str,
        metrics: &'a [String],
    ) -> Fut<'a, Option<Vec<RecordBatch>>> {
        Box::pin(async move {
            match self.get(month).await? {
                Some(bytes) => {
                    read_file_measurements(|| Ok(bytes.clone()), Some(&self.store.key), metrics)
                        .map(Some)
                }
                None => Ok(None),
            }
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

    /// One month's samples of `metrics`, from the local folder when `local`, from the store when `remote` (it
    /// may not be there: `None`); a month in both is merged whole by `read_month`, since a sample is a duplicate
    /// by all its columns.
    async fn read_measurements_from(
        &self,
        month: &str,
        metrics: &[String],
        local: bool,
        remote: bool,
    ) -> Result<Option<Vec<RecordBatch>>> {
        match (local, remote) {
            (true, true) => match self.read_month(month).await? {
                Some(batches) => Ok(Some(select(&batches, metrics)?)),
                None => Ok(None),
            },
            (true, false) => self.local.read_measurements(month, metrics).await,
            (false, true) => self.remote.read_measurements(month, metrics).await,
            (false, false) => Ok(None),
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

    fn read_measurements<'a>(
        &'a self,
        month: &'a str,
        metrics: &'a [String],
    ) -> Fut<'a, Option<Vec<RecordBatch>>> {
        Box::pin(async move {
            let local = self.local.month_path(month).is_file();
            self.read_measurements_from(month, metrics, local, true)
                .await
        })
    }

    /// One listing of each store, then each month read from where it is: a month held locally costs no
    /// request to the object store.
    fn measurements<'a>(
        &'a self,
        ctx: &'a SessionContext,
        span: Span,
        metrics: &'a [String],
    ) -> Fut<'a, Option<DataFrame>> {
        Box::pin(async move {
            let local = self.local.months().await?;
            let remote = self.remote.months().await?;
            let held = |months: &[Month], name: &str| months.iter().any(|m| m.name == name);
            let mut names: Vec<&str> = local
                .iter()
                .chain(&remote)
                .filter(|m| m.meets(span))
                .map(|m| m.name.as_str())
                .collect();
            names.sort_unstable();
            names.dedup();
            let mut batches = Vec::new();
            for name in names {
                let (l, r) = (held(&local, name), held(&remote, name));
                if let Some(b) = self.read_measurements_from(name, metrics, l, r).await? {
                    batches.extend(b);
                }
            }
            table(ctx, schema::measurements(), batches)
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

#[cfg(test)]
mod tests {
    use super::{encode, read_file_measurements, ArrowReaderMetadata, ArrowWriter, RecordBatch};
    use crate::schema::{self, column, Sample};
    use datafusion::arrow::array::{Float64Array, StringArray, TimestampMicrosecondArray};

    fn sample(metric: &str, start: i64, value: f64) -> Sample {
        Sample {
            metric: metric.into(),
            start,
            end: start + 60,
            value,
            unit: "u".into(),
            data_type: "csv".into(),
            source: "test".into(),
        }
    }

    /// `(metric, start, end, value)` of every row, in order.
    fn rows(batches: &[RecordBatch]) -> Vec<(String, i64, i64, f64)> {
        let mut out = Vec::new();
        for b in batches {
            let m = column::<StringArray>(b, "metric").expect("metric");
            let s = column::<TimestampMicrosecondArray>(b, "start").expect("start");
            let e = column::<TimestampMicrosecondArray>(b, "end").expect("end");
            let v = column::<Float64Array>(b, "value").expect("value");
            for i in 0..b.num_rows() {
                out.push((m.value(i).to_string(), s.value(i), e.value(i), v.value(i)));
            }
        }
        out
    }

    #[test]
    fn a_month_file_gives_the_metrics_asked_for_whatever_its_row_groups() {
        let mut samples = Vec::new();
        for (metric, n) in [("bodyTemperature", 2), ("heartRate", 5), ("steps", 3)] {
            for i in 0..n {
                samples.push(sample(metric, i * 1_000, (i as f64) + 0.5));
            }
        }
        let batch = schema::samples_batch(&samples).expect("a batch");
        let key = [7u8; 32];
        // The writer's layout (a row group per metric), the same encrypted, and one row group of every metric.
        let split = bytes::Bytes::from(encode(std::slice::from_ref(&batch), None).expect("encode"));
        let sealed =
            bytes::Bytes::from(encode(std::slice::from_ref(&batch), Some(&key)).expect("encode"));
        let mut whole = Vec::new();
        let mut w = ArrowWriter::try_new(&mut whole, schema::samples(), None).expect("a writer");
        w.write(&batch).expect("write");
        w.close().expect("close");
        let whole = bytes::Bytes::from(whole);
        let groups = |b: &bytes::Bytes| {
            ArrowReaderMetadata::load(b, Default::default())
                .expect("metadata")
                .metadata()
                .num_row_groups()
        };
        assert_eq!((groups(&split), groups(&whole)), (3, 1));
        for (file, key) in [(&split, None), (&sealed, Some(&key[..])), (&whole, None)] {
            for asked in [
                vec!["heartRate"],
                vec!["steps", "bodyTemperature"],
                vec!["glucose"],
                vec!["heartRat"],
                vec![],
            ] {
                let asked: Vec<String> = asked.into_iter().map(String::from).collect();
                let got = read_file_measurements(|| Ok(file.clone()), key, &asked).expect("a read");
                let want: Vec<_> = samples
                    .iter()
                    .filter(|s| asked.contains(&s.metric))
                    .map(|s| (s.metric.clone(), s.start, s.end, s.value))
                    .collect();
                assert_eq!(rows(&got), want, "{asked:?}");
                assert!(got.iter().all(|b| b.schema() == schema::measurements()));
            }
        }
        // A wrong key reads nothing.
        let wrong = [8u8; 32];
        assert!(read_file_measurements(|| Ok(sealed.clone()), Some(&wrong), &[]).is_err());
    }
}
