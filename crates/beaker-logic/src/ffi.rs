//! The one call the `z3` crate does not wrap: `Z3_eval_smtlib2_string`, Z3's own SMT-LIB 2 front end.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString};
use z3::Context;

/// Runs an SMT-LIB 2 script in `ctx` and returns what Z3 printed; an error Z3 reports through its error code
/// (rather than in the output) is appended as an `(error "...")` answer, as Z3 prints its own.
pub fn eval_smtlib2(ctx: &Context, script: &str) -> String {
    let Ok(text) = CString::new(script) else {
        return "(error \"the script contains a NUL byte\")".into();
    };
    let raw = ctx.get_z3_context();
    // SAFETY: `raw` is the live context `ctx` owns (it outlives this call), `text` is a NUL-terminated string
    // that outlives the call, and the returned string is owned by the context and copied out before any other
    // call on it. The context was created with no error handler, so errors are reported through the error
    // code instead of aborting.
    unsafe {
        let out = z3_sys::Z3_eval_smtlib2_string(raw, text.as_ptr());
        let mut printed = if out.is_null() {
            String::new()
        } else {
            CStr::from_ptr(out).to_string_lossy().into_owned()
        };
        let code = z3_sys::Z3_get_error_code(raw);
        if code != z3_sys::ErrorCode::Ok {
            let msg = z3_sys::Z3_get_error_msg(raw, code);
            let msg = if msg.is_null() {
                format!("{code:?}")
            } else {
                CStr::from_ptr(msg).to_string_lossy().into_owned()
            };
            if !printed.contains(&msg) {
                printed.push_str(&format!("(error {:?})\n", msg));
            }
        }
        printed
    }
}
