//! A query and a Parquet round trip through DataFusion, so the build links what beaker-datasets uses of it.
use datafusion::arrow::array::Int64Array;
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::functions_aggregate::expr_fn::count;
use datafusion::prelude::{col, SessionContext};
use std::sync::Arc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from_iter_values(0..1000))])?;
    // A Parquet round trip, as the month files take.
    let mut file = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut file, schema.clone(), None)?;
    w.write(&batch)?;
    w.close()?;
    let batches: Vec<RecordBatch> = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes_of(file))?
        .build()?
        .collect::<Result<_, _>>()?;
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    let n = rt.block_on(async {
        let ctx = SessionContext::new();
        let df = ctx.read_table(Arc::new(MemTable::try_new(schema, vec![batches])?))?;
        df.aggregate(vec![], vec![count(col("x"))])?.collect().await
    })?;
    println!("{:?}", n.first().map(|b| b.column(0).clone()));
    Ok(())
}

fn bytes_of(v: Vec<u8>) -> bytes::Bytes {
    v.into()
}
