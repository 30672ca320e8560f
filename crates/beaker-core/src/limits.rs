use serde::{Deserialize, Serialize};

macro_rules! limits {
    ($( $(#[doc = $doc:literal])* $name:ident : $ty:ty = $default:expr, max $max:expr; )*) => {
        /// The bounds one call runs under. Every field is a hard cap; exceeding one gives
        /// `limit_exceeded` (or `timeout` for `timeout_ms`).
        ///
        /// A server has two of these, its defaults and its maxima. A call may ask for other values
        /// ([`LimitsRequest`]); it gets what it asked for, clamped to the maxima: never wider.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Limits {
            $( $(#[doc = $doc])* pub $name: $ty, )*
        }

        /// The limits a call asks for; absent fields take the server's defaults.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct LimitsRequest {
            $( $(#[doc = $doc])* #[serde(skip_serializing_if = "Option::is_none")] pub $name: Option<$ty>, )*
        }

        impl Default for Limits {
            fn default() -> Self {
                Limits { $( $name: $default, )* }
            }
        }

        impl Limits {
            /// The built-in maxima a server allows unless its configuration says otherwise.
            pub fn default_maxima() -> Self {
                Limits { $( $name: $max, )* }
            }

            /// The limits for one call: `request` over `self` (the defaults), clamped to `max`, each at least 1.
            pub fn narrow(&self, request: &LimitsRequest, max: &Limits) -> Limits {
                Limits { $( $name: request.$name.unwrap_or(self.$name).min(max.$name).max(1), )* }
            }

            /// Checks that no default is above its maximum and none is zero.
            pub fn validate_against(&self, max: &Limits) -> Result<(), LimitsError> {
                $(
                    if self.$name == 0 || max.$name == 0 {
                        return Err(LimitsError { name: stringify!($name), message: "must be at least 1".into() });
                    }
                    if self.$name > max.$name {
                        return Err(LimitsError {
                            name: stringify!($name),
                            message: format!("default {} is above the maximum {}", self.$name, max.$name),
                        });
                    }
                )*
                Ok(())
            }

            /// The names of every limit, in declaration order (for docs and tests).
            pub const NAMES: &'static [&'static str] = &[$( stringify!($name), )*];

            /// Every limit's name and its documentation (the doc comment above, one source for rustdoc and
            /// docs/TOOLS.md), in declaration order.
            pub const DOCS: &'static [(&'static str, &'static str)] = &[$( (stringify!($name), concat!($($doc),*)), )*];
        }
    };
}

limits! {
    /// Execution wall-clock time in milliseconds, from the moment the call starts running (queue time is
    /// not counted). Default 10 s: long enough for any bounded native call, short enough not to stall a rollout.
    /// Exceeding it: `timeout`.
    timeout_ms: u64 = 10_000, max 600_000;
    /// Length of an expression in bytes. Default 10,000: far above any formula a model writes. Exceeding it:
    /// `limit_exceeded` (as for every limit below).
    max_expression_len: u64 = 10_000, max 1_000_000;
    /// Nesting depth of parentheses and function calls in an expression. Default 1,000.
    max_depth: u64 = 1_000, max 100_000;
    /// Decimal digits of any exact number a tool builds (intermediate or final). Default 100,000:
    /// `2**100000` fits, `factorial(10**5)` (456,574 digits) does not.
    max_digits: u64 = 100_000, max 10_000_000;
    /// Digits a call may ask for in `precision` (decimal places, and significant digits for small and huge
    /// results). Default 1,000.
    max_precision: u64 = 1_000, max 100_000;
    /// Bytes of a serialized `result`. Default 4 MiB, below the 16 MiB request line cap.
    max_output_bytes: u64 = 4 << 20, max 256 << 20;
    /// Elements of any one array a numeric tool reads or builds (a sample, a vector, the cells of a matrix,
    /// random draws, the points of an ODE solution). Default 1,000,000: a 10^6-value sample fits (about 10 MB
    /// of JSON, under the 16 MiB line cap); checked before any work.
    max_array_len: u64 = 1_000_000, max 100_000_000;
    /// Rows or columns of a matrix given to an O(n^3) operation (solve, inverse, eigenvalues, SVD,
    /// regression design). Default 1,000: a 1000×1000 decomposition takes about a second; checked before any work.
    max_matrix_dim: u64 = 1_000, max 20_000;
    /// Iterations of an iterative method (optimiser steps, root-finder steps, ODE steps, IRLS rounds).
    /// Default 100,000: far beyond what a converging method needs, small enough to stop a runaway quickly.
    max_iterations: u64 = 100_000, max 100_000_000;
    /// Evaluations of a user-supplied function (quadrature, optimisation, ODE right-hand sides, root finding).
    /// Default 10,000,000: about a second of a compiled f64 expression.
    max_evaluations: u64 = 10_000_000, max 1_000_000_000;
    /// WebAssembly fuel a sandboxed guest may burn (one unit per guest instruction, 1,000 per host call, 1 per
    /// output byte). Unlike the wall-clock timeout it is deterministic: a replayed call stops at the same
    /// instruction. Default 2·10^10: the CPython guest burns about 8.6·10^9 a second on the 2-core reference
    /// machine, so a runaway loop stops on fuel after ~2.3 s, inside the 10 s timeout even on a loaded machine. A
    /// call that raises `timeout_ms` without giving `max_fuel` gets the fuel its timeout is worth at that rate.
    max_fuel: u64 = 20_000_000_000, max 1_000_000_000_000;
    /// Bytes of linear memory a sandboxed guest may use, its initial image included. Default 512 MiB.
    max_memory_bytes: u64 = 512 << 20, max 4 << 30;
    /// Bytes of input (the params JSON on the guest's stdin, or the stdin a Python call provides).
    /// Default 4 MiB.
    max_input_bytes: u64 = 4 << 20, max 256 << 20;
}

/// WebAssembly fuel the CPython guest burns in a second on the 2-core reference machine (measured: about
/// 8.6·10⁹); what a call's timeout is worth in fuel ([`LimitsRequest::with_fuel_for_timeout`]).
pub const FUEL_PER_SECOND: u64 = 8_600_000_000;

impl LimitsRequest {
    /// A request that raises `timeout_ms` but says nothing of `max_fuel` gets the fuel that time is worth (at
    /// [`FUEL_PER_SECOND`]) when that is more than the default, so a longer timeout is not cut short by the default
    /// fuel cap (2·10¹⁰, about 2.3 s of CPython); the server's maxima still clamp it. A request that gives
    /// `max_fuel`, or no timeout, is unchanged.
    pub fn with_fuel_for_timeout(mut self) -> LimitsRequest {
        if let (Some(ms), None) = (self.timeout_ms, self.max_fuel) {
            let worth = ms.saturating_mul(FUEL_PER_SECOND / 1000);
            if worth > Limits::default().max_fuel {
                self.max_fuel = Some(worth);
            }
        }
        self
    }
}

impl Limits {
    /// Refuses, before anything is built, a result of `items` values that cannot fit `max_output_bytes` even if
    /// each took only `min_bytes` (its separator included): large results are refused by their size, never
    /// after they were built whole.
    pub fn check_result_items(
        &self,
        items: u64,
        min_bytes: u64,
        what: &str,
    ) -> Result<(), crate::ToolError> {
        let at_least = items.saturating_mul(min_bytes);
        if at_least > self.max_output_bytes {
            return Err(crate::ToolError::limit(format!(
                "{what} asks for {items} values, a result of at least {at_least} bytes; the limit is \
                 max_output_bytes = {}",
                self.max_output_bytes
            )));
        }
        Ok(())
    }

    /// Refuses a numeric result whose JSON would be over `max_output_bytes`, measured before it is turned into
    /// JSON values (see [`crate::floats_json_len`]).
    pub fn check_floats(&self, values: &[f64], what: &str) -> Result<(), crate::ToolError> {
        let n = crate::floats_json_len(values);
        if n > self.max_output_bytes {
            return Err(crate::ToolError::limit(format!(
                "{what} would be {n} bytes of JSON; the limit is max_output_bytes = {}",
                self.max_output_bytes
            )));
        }
        Ok(())
    }
}

/// A configured limit that makes no sense (a default above its maximum, a zero).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("limit `{name}`: {message}")]
pub struct LimitsError {
    /// The limit's name.
    pub name: &'static str,
    /// What is wrong with it.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_can_narrow_but_never_widen() {
        let defaults = Limits::default();
        let max = Limits {
            timeout_ms: 20_000,
            ..Limits::default_maxima()
        };
        let req = LimitsRequest {
            timeout_ms: Some(500),
            ..Default::default()
        };
        assert_eq!(defaults.narrow(&req, &max).timeout_ms, 500);
        let req = LimitsRequest {
            timeout_ms: Some(1_000_000),
            ..Default::default()
        };
        assert_eq!(defaults.narrow(&req, &max).timeout_ms, 20_000);
        let req = LimitsRequest {
            timeout_ms: Some(0),
            ..Default::default()
        };
        assert_eq!(defaults.narrow(&req, &max).timeout_ms, 1);
        assert_eq!(defaults.narrow(&LimitsRequest::default(), &max), defaults);
    }

    #[test]
    fn unknown_limit_names_are_rejected() {
        let err = serde_json::from_str::<LimitsRequest>(r#"{"timeout": 5}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `timeout`"), "{err}");
    }

    #[test]
    fn defaults_fit_under_maxima() {
        assert_eq!(
            Limits::default().validate_against(&Limits::default_maxima()),
            Ok(())
        );
        let bad = Limits {
            max_digits: 10,
            ..Limits::default()
        };
        let max = Limits {
            max_digits: 5,
            ..Limits::default_maxima()
        };
        assert_eq!(bad.validate_against(&max).unwrap_err().name, "max_digits");
    }
}

#[cfg(test)]
mod doc_tests {
    use super::Limits;

    #[test]
    fn every_limit_is_documented_once() {
        assert_eq!(Limits::DOCS.len(), Limits::NAMES.len());
        for ((name, doc), n) in Limits::DOCS.iter().zip(Limits::NAMES) {
            assert_eq!(name, n);
            assert!(doc.trim().len() > 20, "{name} has no real documentation");
        }
        assert!(Limits::DOCS[0].1.contains("`timeout`"));
        assert!(Limits::DOCS[1].1.contains("`limit_exceeded`"));
    }
}

#[cfg(test)]
mod fuel_tests {
    use super::*;

    #[test]
    fn a_longer_timeout_brings_its_fuel_unless_fuel_is_given() {
        let asked = |t: Option<u64>, f: Option<u64>| {
            LimitsRequest {
                timeout_ms: t,
                max_fuel: f,
                ..Default::default()
            }
            .with_fuel_for_timeout()
            .max_fuel
        };
        assert_eq!(asked(Some(60_000), None), Some(60 * FUEL_PER_SECOND));
        assert_eq!(asked(Some(60_000), Some(5)), Some(5), "given fuel is kept");
        assert_eq!(
            asked(Some(1_000), None),
            None,
            "a shorter timeout keeps the default"
        );
        assert_eq!(asked(None, None), None);
    }
}
