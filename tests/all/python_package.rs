//! `import beaker`: the pytest suite of the Python package (tests/python), in the test clients' venv where
//! `scripts/build-python-package.sh` built it (`.ci/run` does before the tests).

use crate::support::{clients_python, ensure, python_client_passes, root, Outcome};
use libtest_mimic::Trial;

fn the_pytest_suite_passes() -> Outcome {
    let python = clients_python()?;
    let import = std::process::Command::new(&python)
        .args(["-c", "import beaker"])
        .output()
        .map_err(|e| e.to_string())?;
    ensure(import.status.success(), || {
        format!(
            "`import beaker` fails in {}: run scripts/build-python-package.sh\n{}",
            python.display(),
            String::from_utf8_lossy(&import.stderr)
        )
    })?;
    python_client_passes([
        "-m".into(),
        "pytest".into(),
        "-q".into(),
        "-p".into(),
        "no:cacheprovider".into(),
        root().join("tests/python").into_os_string(),
    ])
}

/// The Python package's trials.
pub fn trials() -> Vec<Trial> {
    vec![Trial::test(
        "python_package::the_pytest_suite_passes",
        the_pytest_suite_passes,
    )]
}
