//! The one tokenizer of every index and query: split at every character that is not alphanumeric (Unicode's
//! `Alphabetic` or a number), then lower-case each character. No stemming and no stop words, so a reference
//! implementation can say exactly the same in a few lines (`tests/data/gen/web_search_reference.py`).

use tantivy::tokenizer::{LowerCaser, SimpleTokenizer, TextAnalyzer, TokenStream};

/// The name the analyzer is registered under in every index (stored in the index's schema).
pub const NAME: &str = "beaker_words_v1";

/// The analyzer: tantivy's `SimpleTokenizer` (splits at `!char::is_alphanumeric`) and `LowerCaser`.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .build()
}

/// The tokens of `text`, in order (with repeats).
pub fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

/// How many tokens `text` has: a document's length for BM25.
pub fn count(analyzer: &mut TextAnalyzer, text: &str) -> u64 {
    let mut n = 0;
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        n += 1;
    }
    n
}
