//! `numerical` against SciPy/NumPy reference data (`tests/data/numerical/`).

use libtest_mimic::Trial;

pub fn trials() -> Vec<Trial> {
    vec![]
}
