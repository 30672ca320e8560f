//! Unit tests of the index: reading corpora, building, scoring, ties, sites and paging.
