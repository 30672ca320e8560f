use super::*;

#[test]
fn java_s_class_is_the_public_one() {
    assert_eq!(
        languages::java_class("public class Solution { }"),
        "Solution"
    );
    assert_eq!(
        languages::java_class("import java.util.*;\npublic final class A1 {}"),
        "A1"
    );
    assert_eq!(
        languages::java_class("class Helper {}\nclass Main {}"),
        "Main"
    );
}

#[test]
fn build_keys_separate_their_parts() {
    assert_ne!(cache::key(&["ab", "c"]), cache::key(&["a", "bc"]));
    assert_eq!(cache::key(&["c", "x"]).len(), 64);
}

#[test]
fn a_build_is_found_again_and_a_missing_cache_still_builds() {
    let root = tempfile::tempdir().expect("tempdir");
    let cache = cache::BuildCache::new(Some(root.path().join("builds")), &|p| p.exists());
    let work = cache.workspace().expect("workspace");
    std::fs::write(work.path().join("main"), b"x").expect("write");
    let built = cache.put("k", work);
    assert!(built.path().join("main").is_file());
    assert!(cache
        .get("k")
        .is_some_and(|b| b.path().join("main").is_file()));
    assert!(cache.get("other").is_none());
    let none = cache::BuildCache::new(None, &|_| false);
    let work = none.workspace().expect("workspace");
    let kept = none.put("k", work);
    assert!(kept.path().is_dir());
}

#[test]
fn python_imports_are_found_in_every_statement_form() {
    let code = "import numpy as np, os.path\nfrom scipy.linalg import solve\nif x:\n    import sympy; import pandas\nfrom . import local\nprint('import matplotlib')\n";
    assert_eq!(
        languages::python_imports(code),
        ["numpy", "os", "scipy", "sympy", "pandas"]
    );
}

#[test]
fn a_launcher_imports_what_the_program_imports_and_nothing_more() {
    assert_eq!(preload_for("print(2**100)"), Vec::<String>::new());
    // numpy.random too: every run reseeds numpy's global generator, which loads it.
    assert_eq!(preload_for("import numpy as np"), ["numpy", "numpy.random"]);
    assert_eq!(
        preload_for("import pandas\nimport sympy"),
        ["mpmath", "sympy", "numpy", "numpy.random", "pandas"]
    );
}

#[test]
fn the_tools_of_a_server_share_one_jail_and_its_launchers() {
    // execute_code, code_test's judge and execute_python's native backend each had a jail and a launcher pool
    // of their own: three pools, each within its own cap.
    let code = ExecuteCode::new(None);
    let judge = ExecuteCode::new(None);
    let python = NativePython::new();
    let shared = shared_host();
    assert!(std::ptr::eq(code.host(), &*shared));
    assert!(std::ptr::eq(judge.host(), &*shared));
    assert!(std::ptr::eq(python.host(), &*shared));
    // A cache folder of its own is a host of its own.
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(!std::ptr::eq(
        ExecuteCode::new(Some(dir.path().into())).host(),
        &*shared
    ));
}
