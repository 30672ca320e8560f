//! `distribution`: sixteen distributions with SciPy's names and parameters, their pdf/pmf, cdf, sf,
//! quantiles, moments and seeded samples.
//!
//! statrs computes the standard forms; `loc` and `scale` are applied here as SciPy does
//! (`pdf(x) = f((x - loc) / scale) / scale`). Quantiles are found by bisection on the bit patterns of
//! doubles, so they are as exact as the cdf/sf they invert (about 64 evaluations); below the median the
//! cdf is inverted and above it the sf, so tails keep their relative precision.

use crate::input::{count, finite, num, nums, short, Args};
use beaker_core::ToolError;
use rand::distr::Distribution as _;
use rand::SeedableRng;
use serde_json::{json, Value};
use statrs::distribution::{
    Beta, Binomial, ChiSquared, Continuous, ContinuousCDF, Discrete, DiscreteCDF, Exp,
    FisherSnedecor, Gamma, Geometric, Hypergeometric, LogNormal, NegativeBinomial, Normal, Poisson,
    StudentsT, Uniform, Weibull,
};
use std::f64::consts::PI;

/// Every distribution name, for the schema and messages.
pub const NAMES: &[&str] = &[
    "normal",
    "t",
    "chi2",
    "f",
    "binomial",
    "poisson",
    "uniform",
    "exponential",
    "gamma",
    "beta",
    "lognormal",
    "geometric",
    "hypergeometric",
    "negative_binomial",
    "weibull",
    "cauchy",
];

/// Every function of a distribution `distribution` evaluates.
pub const FUNCTIONS: &[&str] = &[
    "pdf", "pmf", "logpdf", "logpmf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf", "mean", "var",
    "std", "median", "sample",
];

/// A standard (loc 0, scale 1) continuous distribution.
pub(crate) enum Cont {
    Normal(Normal),
    T(StudentsT),
    Chi2(ChiSquared),
    F(FisherSnedecor),
    Uniform(Uniform),
    Exponential(Exp),
    Gamma(Gamma),
    Beta(Beta),
    LogNormal(LogNormal, f64),
    Weibull(Weibull, f64),
    Cauchy,
}

/// A discrete distribution on the integers (before `loc`).
pub(crate) enum Disc {
    Binomial(Binomial),
    /// `None` is `mu = 0`, a point mass at 0 (SciPy allows it; statrs does not).
    Poisson(Option<Poisson>),
    Geometric(Geometric),
    Hypergeometric(Hypergeometric),
    NegativeBinomial(NegativeBinomial),
}

/// A distribution with SciPy's `loc` (and `scale`, continuous only).
pub(crate) enum Dist {
    Continuous { d: Cont, loc: f64, scale: f64 },
    Discrete { d: Disc, loc: f64 },
}

fn bad(name: &str, e: impl std::fmt::Display) -> ToolError {
    ToolError::invalid_params(format!("invalid parameters for `{name}`: {e}"))
}

/// The distribution's parameters, read from `data` (SciPy's keyword names).
struct Params<'a> {
    data: &'a Value,
    name: &'a str,
}

impl Params<'_> {
    fn get(&self, key: &str, default: Option<f64>) -> Result<f64, ToolError> {
        match self.data.get(key) {
            None | Some(Value::Null) => default.ok_or_else(|| {
                ToolError::invalid_params(format!(
                    "`{}` needs the parameter `data.{key}`",
                    self.name
                ))
            }),
            Some(v) => finite(v, &format!("data.{key}")),
        }
    }
    fn positive(&self, key: &str, default: Option<f64>) -> Result<f64, ToolError> {
        let x = self.get(key, default)?;
        if x <= 0.0 {
            return Err(bad(self.name, format!("`{key}` must be > 0, got {x}")));
        }
        Ok(x)
    }
    fn prob(&self, key: &str, open_low: bool) -> Result<f64, ToolError> {
        let p = self.get(key, None)?;
        if !(0.0..=1.0).contains(&p) || (open_low && p == 0.0) {
            let range = if open_low { "(0, 1]" } else { "[0, 1]" };
            return Err(bad(
                self.name,
                format!("`{key}` must be in {range}, got {p}"),
            ));
        }
        Ok(p)
    }
    fn int(&self, key: &str) -> Result<u64, ToolError> {
        let v = self.data.get(key).ok_or_else(|| {
            ToolError::invalid_params(format!("`{}` needs the parameter `data.{key}`", self.name))
        })?;
        count(v, &format!("data.{key}")).map_err(|e| bad(self.name, e.message))
    }
}

/// SciPy's name or ours → our canonical name.
pub(crate) fn canonical_name(name: &str) -> Result<&'static str, ToolError> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "norm" | "normal" | "gaussian" => "normal",
        "t" | "student_t" | "students_t" => "t",
        "chi2" | "chisquare" | "chi_square" | "chi_squared" => "chi2",
        "f" => "f",
        "binom" | "binomial" => "binomial",
        "poisson" => "poisson",
        "uniform" => "uniform",
        "expon" | "exponential" => "exponential",
        "gamma" => "gamma",
        "beta" => "beta",
        "lognorm" | "lognormal" => "lognormal",
        "geom" | "geometric" => "geometric",
        "hypergeom" | "hypergeometric" => "hypergeometric",
        "nbinom" | "negative_binomial" | "negbinom" => "negative_binomial",
        "weibull" | "weibull_min" => "weibull",
        "cauchy" => "cauchy",
        _ => {
            return Err(ToolError::invalid_params(format!(
                "unknown distribution \"{name}\"; known: {}",
                NAMES.join(", ")
            )))
        }
    })
}

/// The parameter keys a distribution takes (SciPy's names), and a hint for the keys models often try.
pub(crate) fn param_keys(canonical: &str) -> (&'static [&'static str], &'static str) {
    match canonical {
        "normal" => (
            &["loc", "scale"],
            "loc is the mean and scale the standard deviation",
        ),
        "t" => (&["df", "loc", "scale"], "df is the degrees of freedom"),
        "chi2" => (&["df", "loc", "scale"], "df is the degrees of freedom"),
        "f" => (
            &["dfn", "dfd", "loc", "scale"],
            "dfn and dfd are the numerator and denominator degrees of freedom",
        ),
        "uniform" => (&["loc", "scale"], "the support is [loc, loc + scale]"),
        "exponential" => (&["loc", "scale"], "scale is 1/rate (the mean)"),
        "gamma" => (&["a", "loc", "scale"], "a is the shape and scale is 1/rate"),
        "beta" => (&["a", "b", "loc", "scale"], "a and b are the shapes"),
        "lognormal" => (
            &["s", "loc", "scale"],
            "s is sigma of the logarithm and scale is exp(mu)",
        ),
        "weibull" => (&["c", "loc", "scale"], "c is the shape"),
        "cauchy" => (
            &["loc", "scale"],
            "loc is the median and scale the half-width",
        ),
        "binomial" => (&["n", "p", "loc"], "n trials with success probability p"),
        "poisson" => (&["mu", "loc"], "mu is the mean (the rate)"),
        "geometric" => (
            &["p", "loc"],
            "p is the success probability; the support starts at 1",
        ),
        "hypergeometric" => (
            &["M", "n", "N", "loc"],
            "M is the population, n its successes, N the draws",
        ),
        "negative_binomial" => (
            &["n", "p", "loc"],
            "n successes with probability p; counts failures",
        ),
        _ => (&[], ""),
    }
}

impl Dist {
    /// The distribution `data.distribution` with its parameters from `data`.
    pub fn from_data(data: &Value) -> Result<Dist, ToolError> {
        let name = match data.get("distribution") {
            Some(Value::String(s)) => s.as_str(),
            Some(v) => {
                return Err(ToolError::invalid_params(format!(
                    "`data.distribution` must be a name, not {}",
                    short(v)
                )))
            }
            None => return Err(ToolError::invalid_params("`data.distribution` is required")),
        };
        let canonical = canonical_name(name)?;
        let p = Params {
            data,
            name: canonical,
        };
        let cont = |d: Cont| -> Result<Dist, ToolError> {
            Ok(Dist::Continuous {
                d,
                loc: p.get("loc", Some(0.0))?,
                scale: p.positive("scale", Some(1.0))?,
            })
        };
        let disc = |d: Disc| -> Result<Dist, ToolError> {
            Ok(Dist::Discrete {
                d,
                loc: p.get("loc", Some(0.0))?,
            })
        };
        let e = |e: &dyn std::fmt::Display| bad(canonical, e);
        match canonical {
            "normal" => cont(Cont::Normal(Normal::standard())),
            "t" => cont(Cont::T(
                StudentsT::new(0.0, 1.0, p.positive("df", None)?).map_err(|x| e(&x))?,
            )),
            "chi2" => cont(Cont::Chi2(
                ChiSquared::new(p.positive("df", None)?).map_err(|x| e(&x))?,
            )),
            "f" => cont(Cont::F(
                FisherSnedecor::new(p.positive("dfn", None)?, p.positive("dfd", None)?)
                    .map_err(|x| e(&x))?,
            )),
            "uniform" => cont(Cont::Uniform(Uniform::standard())),
            "exponential" => cont(Cont::Exponential(Exp::new(1.0).map_err(|x| e(&x))?)),
            "gamma" => cont(Cont::Gamma(
                Gamma::new(p.positive("a", None)?, 1.0).map_err(|x| e(&x))?,
            )),
            "beta" => cont(Cont::Beta(
                Beta::new(p.positive("a", None)?, p.positive("b", None)?).map_err(|x| e(&x))?,
            )),
            "lognormal" => {
                let s = p.positive("s", None)?;
                cont(Cont::LogNormal(
                    LogNormal::new(0.0, s).map_err(|x| e(&x))?,
                    s,
                ))
            }
            "weibull" => {
                let c = p.positive("c", None)?;
                cont(Cont::Weibull(Weibull::new(c, 1.0).map_err(|x| e(&x))?, c))
            }
            "cauchy" => cont(Cont::Cauchy),
            "binomial" => {
                let n = p.int("n")?;
                disc(Disc::Binomial(
                    Binomial::new(p.prob("p", false)?, n).map_err(|x| e(&x))?,
                ))
            }
            "poisson" => {
                let mu = p.get("mu", None)?;
                if mu < 0.0 {
                    return Err(bad(p.name, format!("`mu` must be >= 0, got {mu}")));
                }
                let d = if mu == 0.0 {
                    None
                } else {
                    Some(Poisson::new(mu).map_err(|x| e(&x))?)
                };
                disc(Disc::Poisson(d))
            }
            "geometric" => disc(Disc::Geometric(
                Geometric::new(p.prob("p", true)?).map_err(|x| e(&x))?,
            )),
            "hypergeometric" => {
                let (m, n, k) = (p.int("M")?, p.int("n")?, p.int("N")?);
                if n > m || k > m {
                    return Err(bad(
                        canonical,
                        format!("`n` ({n}) and `N` ({k}) must not exceed `M` ({m})"),
                    ));
                }
                disc(Disc::Hypergeometric(
                    Hypergeometric::new(m, n, k).map_err(|x| e(&x))?,
                ))
            }
            "negative_binomial" => disc(Disc::NegativeBinomial(
                NegativeBinomial::new(p.positive("n", None)?, p.prob("p", true)?)
                    .map_err(|x| e(&x))?,
            )),
            _ => unreachable!("every canonical name is matched"),
        }
    }

    fn is_discrete(&self) -> bool {
        matches!(self, Dist::Discrete { .. })
    }

    /// The cumulative distribution function.
    pub fn cdf(&self, x: f64) -> f64 {
        match self {
            Dist::Continuous { d, loc, scale } => d.cdf((x - loc) / scale),
            Dist::Discrete { d, loc } => match k_of(x - loc) {
                K::Below => 0.0,
                K::At(k) => d.cdf(k),
            },
        }
    }

    /// The survival function, `1 - cdf`, computed without cancellation.
    pub fn sf(&self, x: f64) -> f64 {
        match self {
            Dist::Continuous { d, loc, scale } => d.sf((x - loc) / scale),
            Dist::Discrete { d, loc } => match k_of(x - loc) {
                K::Below => 1.0,
                K::At(k) => d.sf(k),
            },
        }
    }

    /// The density (pdf) or mass (pmf).
    fn density(&self, x: f64) -> f64 {
        match self {
            Dist::Continuous { d, loc, scale } => d.pdf((x - loc) / scale) / scale,
            Dist::Discrete { d, loc } => {
                let k = x - loc;
                if k < 0.0 || k.fract() != 0.0 || k > 9.0e15 {
                    0.0
                } else {
                    d.pmf(k as u64)
                }
            }
        }
    }

    fn ln_density(&self, x: f64) -> f64 {
        match self {
            Dist::Continuous { d, loc, scale } => d.ln_pdf((x - loc) / scale) - scale.ln(),
            Dist::Discrete { d, loc } => {
                let k = x - loc;
                if k < 0.0 || k.fract() != 0.0 || k > 9.0e15 {
                    f64::NEG_INFINITY
                } else {
                    d.ln_pmf(k as u64)
                }
            }
        }
    }

    fn ln_cdf(&self, x: f64) -> f64 {
        match self {
            Dist::Continuous {
                d: Cont::Normal(_),
                loc,
                scale,
            } => crate::normal::ln_cdf((x - loc) / scale),
            _ => {
                // The sf only where it is needed: above the median, ln(1 - sf) keeps the digits.
                let c = self.cdf(x);
                if c > 0.5 {
                    (-self.sf(x)).ln_1p()
                } else {
                    c.ln()
                }
            }
        }
    }

    fn ln_sf(&self, x: f64) -> f64 {
        match self {
            Dist::Continuous {
                d: Cont::Exponential(_),
                loc,
                scale,
            } => -((x - loc) / scale).max(0.0),
            Dist::Continuous {
                d: Cont::Weibull(_, c),
                loc,
                scale,
            } => -((x - loc) / scale).max(0.0).powf(*c),
            Dist::Continuous {
                d: d @ (Cont::Gamma(_) | Cont::Chi2(_)),
                loc,
                scale,
            } if self.sf(x) < 1e-300 => {
                let z = (x - loc) / scale;
                match d {
                    Cont::Gamma(g) => ln_gamma_q(g.shape(), z),
                    Cont::Chi2(c) => ln_gamma_q(c.freedom() / 2.0, z / 2.0),
                    _ => f64::NEG_INFINITY,
                }
            }
            Dist::Continuous {
                d: Cont::Normal(_),
                loc,
                scale,
            } => crate::normal::ln_cdf(-(x - loc) / scale),
            _ => {
                let s = self.sf(x);
                if s > 0.5 {
                    (-self.cdf(x)).ln_1p()
                } else {
                    s.ln()
                }
            }
        }
    }

    /// The quantile function: the smallest x with `cdf(x) >= q`.
    pub fn ppf(&self, q: f64) -> f64 {
        self.quantile(q, 1.0 - q)
    }

    /// The inverse survival function: the smallest x with `sf(x) <= q`.
    pub fn isf(&self, q: f64) -> f64 {
        self.quantile(1.0 - q, q)
    }

    /// The x with lower-tail probability `lower` and upper-tail probability `upper` (`lower + upper = 1`,
    /// one of them given exactly): the smaller tail is inverted, through the cdf or the sf, so both tails
    /// keep their relative precision (1 - q is exact for q > 0.5 by Sterbenz's lemma, not for small q).
    fn quantile(&self, lower: f64, upper: f64) -> f64 {
        match self {
            // The normal family has an accurate closed-form quantile (AS241 polished by Newton).
            Dist::Continuous {
                d: Cont::Normal(_),
                loc,
                scale,
            } => return loc + scale * crate::normal::quantile(lower, upper),
            Dist::Continuous {
                d: Cont::LogNormal(_, s),
                loc,
                scale,
            } => return loc + scale * (s * crate::normal::quantile(lower, upper)).exp(),
            _ => {}
        }
        if lower == 0.5 {
            if let Some(m) = self.symmetric_centre() {
                return m;
            }
        }
        if lower <= upper {
            self.invert(|x| self.cdf(x), lower, true)
        } else {
            self.invert(|x| self.sf(x), upper, false)
        }
    }

    /// Solves `f(x) = target` for monotone `f` (increasing when `up`), to adjacent doubles for continuous
    /// distributions and to the exact integer (shifted by `loc`) for discrete ones.
    fn invert(&self, f: impl Fn(f64) -> f64, target: f64, up: bool) -> f64 {
        let (lo, hi) = self.support();
        // `hit(x)`: x is at or past the quantile. A discrete cdf that equals q exactly (nbinom(5, ½) at 4
        // is exactly ½) may come out an ulp or two low: a relative slack of 1e-14 keeps such steps.
        let slack = if self.is_discrete() { 1e-14 } else { 0.0 };
        let hit = |x: f64| {
            let v = f(x);
            if up {
                v >= target * (1.0 - slack)
            } else {
                v <= target * (1.0 + slack)
            }
        };
        // SciPy's conventions at the ends: ppf(0) and isf(1) are the bottom of the support (one below it
        // for discrete distributions), ppf(1) and isf(0) the top.
        let bottom = if self.is_discrete() { lo - 1.0 } else { lo };
        if target <= 0.0 {
            return if up { bottom } else { hi };
        }
        if target >= 1.0 {
            return if up { hi } else { bottom };
        }
        // Bracket: a is before the quantile, b at or past it.
        let (mut a, mut b) = (lo, hi);
        if !a.is_finite() || !b.is_finite() {
            let (mut l, mut r) = if lo.is_finite() {
                (lo, lo + 1.0)
            } else {
                (-1.0, 1.0)
            };
            if lo.is_finite() {
                while !hit(r) && r < f64::MAX / 2.0 {
                    l = r;
                    r = lo + (r - lo) * 2.0;
                }
            } else {
                while !hit(r) && r < f64::MAX / 2.0 {
                    l = r;
                    r *= 2.0;
                }
                while hit(l) && l > -f64::MAX / 2.0 {
                    r = l;
                    l *= 2.0;
                }
            }
            a = l;
            b = r;
        }
        if self.is_discrete() {
            // Integers (relative to loc): smallest k with hit(k).
            let loc = match self {
                Dist::Discrete { loc, .. } => *loc,
                Dist::Continuous { .. } => 0.0,
            };
            let (mut ka, mut kb) = ((a - loc).floor() - 1.0, (b - loc).ceil());
            if hit(ka + loc) {
                return ka.max(0.0) + loc;
            }
            while kb - ka > 1.0 {
                let mid = ((ka + kb) / 2.0).floor();
                if hit(mid + loc) {
                    kb = mid;
                } else {
                    ka = mid;
                }
            }
            return kb + loc;
        }
        // Bisect on the ordered bit patterns: every step halves the number of doubles in between, so 64
        // steps reach adjacent doubles even across many orders of magnitude.
        let (mut ka, mut kb) = (key(a), key(b));
        // i128: the keys of -2.0 and 3.0 are more than i64::MAX apart.
        while i128::from(kb) - i128::from(ka) > 1 {
            let mid = (i128::from(ka) + (i128::from(kb) - i128::from(ka)) / 2) as i64;
            if hit(unkey(mid)) {
                kb = mid;
            } else {
                ka = mid;
            }
        }
        let (xa, xb) = (unkey(ka), unkey(kb));
        // The closer of the two neighbours.
        if (f(xa) - target).abs() < (f(xb) - target).abs() {
            xa
        } else {
            xb
        }
    }

    /// The centre of a symmetric continuous distribution: its median exactly, which bisection cannot
    /// find because the cdf is flat (0.5 to rounding) within about 1e-16 of it.
    fn symmetric_centre(&self) -> Option<f64> {
        match self {
            Dist::Continuous {
                d: Cont::Normal(_) | Cont::T(_) | Cont::Cauchy,
                loc,
                ..
            } => Some(*loc),
            Dist::Continuous {
                d: Cont::Uniform(_),
                loc,
                scale,
            } => Some(loc + scale / 2.0),
            _ => None,
        }
    }

    fn support(&self) -> (f64, f64) {
        match self {
            Dist::Continuous { d, loc, scale } => {
                let (a, b) = d.support();
                (loc + scale * a, loc + scale * b)
            }
            Dist::Discrete { d, loc } => {
                let (a, b) = d.support();
                (loc + a, loc + b)
            }
        }
    }

    /// Mean and variance, `None` where undefined; infinite where they diverge.
    fn moments(&self) -> (Option<f64>, Option<f64>) {
        match self {
            Dist::Continuous { d, loc, scale } => {
                let (m, v) = d.moments();
                (m.map(|m| loc + scale * m), v.map(|v| scale * scale * v))
            }
            Dist::Discrete { d, loc } => {
                let (m, v) = d.moments();
                (Some(loc + m), Some(v))
            }
        }
    }

    /// One random draw.
    fn sample(&self, rng: &mut rand_pcg::Pcg64) -> f64 {
        match self {
            Dist::Continuous { d, loc, scale } => loc + scale * d.sample(rng),
            Dist::Discrete { d, loc } => loc + d.sample(rng),
        }
    }
}

enum K {
    Below,
    At(u64),
}

/// The integer k = floor(x) for a discrete cdf (saturating at the top of u64's exact range).
fn k_of(x: f64) -> K {
    if x < 0.0 {
        K::Below
    } else {
        K::At(x.floor().min(9.0e15) as u64)
    }
}

/// Doubles mapped to integers in the same order (negative doubles reversed), so bisection on integers
/// is bisection on adjacent doubles.
fn key(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    if b < 0 {
        i64::MIN - b
    } else {
        b
    }
}

fn unkey(k: i64) -> f64 {
    let b = if k < 0 { i64::MIN - k } else { k };
    f64::from_bits(b as u64)
}

/// `(P(a, z), Q(a, z))`, the gamma distribution's cdf and sf at `z` (0 and 1 below the support).
fn gamma_tails(a: f64, z: f64) -> (f64, f64) {
    if z <= 0.0 {
        (0.0, 1.0)
    } else {
        crate::incgamma::gamma_pq(a, z)
    }
}

/// `ln Q(a, x)`, the log of the regularised upper incomplete gamma function, for x > a + 1 where Q may
/// underflow: `-x + a ln x - ln Γ(a) + ln CF`, the continued fraction evaluated by Lentz's method.
fn ln_gamma_q(a: f64, x: f64) -> f64 {
    let q = crate::incgamma::gamma_pq(a, x).1;
    if x <= a + 1.0 || q > 1e-300 {
        return q.ln();
    }
    let tiny = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / tiny;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..1000 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < tiny {
            d = tiny;
        }
        c = b + an / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    -x + a * x.ln() - statrs::function::gamma::ln_gamma(a) + h.ln()
}

/// The quantile of Student's t with `df` degrees of freedom (accurate to adjacent doubles).
pub(crate) fn t_ppf(df: f64, q: f64) -> Result<f64, ToolError> {
    let d = StudentsT::new(0.0, 1.0, df)
        .map_err(|e| ToolError::domain(format!("no t distribution with df = {df}: {e}")))?;
    Ok(Dist::Continuous {
        d: Cont::T(d),
        loc: 0.0,
        scale: 1.0,
    }
    .ppf(q))
}

/// The quantile of Beta(a, b).
pub(crate) fn beta_ppf(a: f64, b: f64, q: f64) -> Result<f64, ToolError> {
    let d = Beta::new(a, b).map_err(|e| {
        ToolError::domain(format!("no beta distribution with a = {a}, b = {b}: {e}"))
    })?;
    Ok(Dist::Continuous {
        d: Cont::Beta(d),
        loc: 0.0,
        scale: 1.0,
    }
    .ppf(q))
}

/// The standard normal quantile.
pub(crate) fn norm_ppf(q: f64) -> f64 {
    crate::normal::quantile(q, 1.0 - q)
}

/// Student's t cdf. Two forms of the incomplete beta, each where its argument keeps its digits: in the
/// tails the lower tail at -|x| is `½·I_{df/(df+x²)}(df/2, ½)`, with both arguments formed from
/// `r = df/x²` so nothing overflows for |x| up to 1e308; near the centre (x² < df) it is
/// `½·(1 - I_{x²/(df+x²)}(½, df/2))`, formed from `u² = x²/df`, which underflows harmlessly to the median
/// where `df/x²` would overflow (that overflow gave NaN for 1e-300 < |x| < 1e-150 and sent the quantile
/// search to 0 for probabilities 0.18–0.495).
pub(crate) fn t_cdf(df: f64, x: f64) -> f64 {
    if x.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if x.is_infinite() {
        return if x < 0.0 { 0.0 } else { 1.0 };
    }
    if df > 1e7 {
        return crate::special::t_cdf_large_df(x, df);
    }
    if x == 0.0 {
        return 0.5;
    }
    let u = x.abs() / df.sqrt();
    let tail = if u < 1.0 {
        let u2 = u * u;
        let (_, outside) =
            crate::special::beta_reg_pair(0.5, df / 2.0, u2 / (1.0 + u2), 1.0 / (1.0 + u2));
        0.5 * outside
    } else {
        let r = (1.0 / u).powi(2);
        let (lower, _) =
            crate::special::beta_reg_pair(df / 2.0, 0.5, r / (1.0 + r), 1.0 / (1.0 + r));
        0.5 * lower
    };
    if x <= 0.0 {
        tail
    } else {
        1.0 - tail
    }
}

/// `(cdf, sf)` of F(dfn, dfd) at z ≥ 0.
pub(crate) fn f_cdf_sf(dfn: f64, dfd: f64, z: f64) -> (f64, f64) {
    if z <= 0.0 {
        return (0.0, 1.0);
    }
    let den = dfn * z + dfd;
    crate::special::beta_reg_pair(dfn / 2.0, dfd / 2.0, dfn * z / den, dfd / den)
}

/// The F density (R's `df`, through the binomial density, so large degrees of freedom do not overflow).
fn f_pdf(m: f64, n: f64, x: f64) -> f64 {
    if x < 0.0 {
        return 0.0;
    }
    if x == 0.0 {
        return if m > 2.0 {
            0.0
        } else if m == 2.0 {
            1.0
        } else {
            f64::INFINITY
        };
    }
    let f = 1.0 / (n + x * m);
    let q = n * f;
    let p = x * m * f;
    if m >= 2.0 {
        let fac = m * q / 2.0;
        fac * crate::special::ln_dbinom_split((m - 2.0) / 2.0, n / 2.0, p, q).exp()
    } else {
        let fac = m * m * q / (2.0 * p * (m + n));
        fac * crate::special::ln_dbinom_split(m / 2.0, n / 2.0, p, q).exp()
    }
}

impl Cont {
    fn pdf(&self, z: f64) -> f64 {
        match self {
            Cont::Normal(_) => crate::normal::pdf(z),
            Cont::T(d) => d.pdf(z),
            Cont::Chi2(d) => 0.5 * crate::incgamma::gamma_density(d.freedom() / 2.0, z / 2.0),
            Cont::F(d) => f_pdf(d.freedom_1(), d.freedom_2(), z),
            Cont::Uniform(d) => d.pdf(z),
            Cont::Exponential(d) => d.pdf(z),
            Cont::Gamma(d) => crate::incgamma::gamma_density(d.shape(), z),
            Cont::Beta(d) => d.pdf(z),
            Cont::LogNormal(d, _) => d.pdf(z),
            Cont::Weibull(d, _) => d.pdf(z),
            Cont::Cauchy => 1.0 / (PI * (1.0 + z * z)),
        }
    }
    fn ln_pdf(&self, z: f64) -> f64 {
        match self {
            Cont::Normal(_) => crate::normal::ln_pdf(z),
            Cont::T(d) => d.ln_pdf(z),
            Cont::Chi2(d) => {
                let p = 0.5 * crate::incgamma::gamma_density(d.freedom() / 2.0, z / 2.0);
                if p > 0.0 && p.is_finite() {
                    p.ln()
                } else {
                    d.ln_pdf(z)
                }
            }
            Cont::F(d) => f_pdf(d.freedom_1(), d.freedom_2(), z).ln(),
            Cont::Uniform(d) => d.ln_pdf(z),
            Cont::Exponential(d) => d.ln_pdf(z),
            Cont::Gamma(d) => {
                let p = crate::incgamma::gamma_density(d.shape(), z);
                if p > 0.0 && p.is_finite() {
                    p.ln()
                } else {
                    d.ln_pdf(z)
                }
            }
            Cont::Beta(d) => d.ln_pdf(z),
            Cont::LogNormal(d, _) => d.ln_pdf(z),
            Cont::Weibull(d, _) => d.ln_pdf(z),
            Cont::Cauchy => -(PI.ln() + (z * z).ln_1p()),
        }
    }
    fn cdf(&self, z: f64) -> f64 {
        match self {
            Cont::Normal(_) => crate::normal::cdf(z),
            Cont::T(d) => t_cdf(d.freedom(), z),
            Cont::Chi2(d) => gamma_tails(d.freedom() / 2.0, z / 2.0).0,
            Cont::F(d) => f_cdf_sf(d.freedom_1(), d.freedom_2(), z).0,
            Cont::Uniform(d) => d.cdf(z),
            Cont::Exponential(_) => {
                if z <= 0.0 {
                    0.0
                } else {
                    -(-z).exp_m1()
                }
            }
            Cont::Gamma(d) => gamma_tails(d.shape(), z).0,
            Cont::Beta(d) => {
                if z <= 0.0 {
                    0.0
                } else {
                    crate::special::beta_reg_pair(d.shape_a(), d.shape_b(), z, 1.0 - z).0
                }
            }
            Cont::LogNormal(_, s) => {
                if z <= 0.0 {
                    0.0
                } else {
                    crate::normal::cdf(z.ln() / s)
                }
            }
            Cont::Weibull(_, c) => {
                if z <= 0.0 {
                    0.0
                } else {
                    -(-z.powf(*c)).exp_m1()
                }
            }
            // atan2 keeps full relative precision in the far tails, where 0.5 + atan(z)/π cancels.
            Cont::Cauchy => (1.0f64).atan2(-z) / PI,
        }
    }
    fn sf(&self, z: f64) -> f64 {
        match self {
            Cont::Normal(_) => crate::normal::sf(z),
            Cont::T(d) => t_cdf(d.freedom(), -z),
            Cont::Chi2(d) => gamma_tails(d.freedom() / 2.0, z / 2.0).1,
            Cont::F(d) => f_cdf_sf(d.freedom_1(), d.freedom_2(), z).1,
            Cont::Uniform(d) => d.sf(z),
            Cont::Exponential(_) => {
                if z <= 0.0 {
                    1.0
                } else {
                    (-z).exp()
                }
            }
            Cont::Gamma(d) => gamma_tails(d.shape(), z).1,
            Cont::Beta(d) => {
                if z <= 0.0 {
                    1.0
                } else {
                    crate::special::beta_reg_pair(d.shape_a(), d.shape_b(), z, 1.0 - z).1
                }
            }
            Cont::LogNormal(_, s) => {
                if z <= 0.0 {
                    1.0
                } else {
                    crate::normal::sf(z.ln() / s)
                }
            }
            Cont::Weibull(_, c) => {
                if z <= 0.0 {
                    1.0
                } else {
                    (-z.powf(*c)).exp()
                }
            }
            Cont::Cauchy => (1.0f64).atan2(z) / PI,
        }
    }
    fn support(&self) -> (f64, f64) {
        match self {
            Cont::Normal(_) | Cont::T(_) | Cont::Cauchy => (f64::NEG_INFINITY, f64::INFINITY),
            Cont::Uniform(_) | Cont::Beta(_) => (0.0, 1.0),
            _ => (0.0, f64::INFINITY),
        }
    }
    fn moments(&self) -> (Option<f64>, Option<f64>) {
        use statrs::function::gamma::gamma;
        match self {
            Cont::Normal(_) => (Some(0.0), Some(1.0)),
            Cont::T(d) => {
                let df = d.freedom();
                let m = (df > 1.0).then_some(0.0);
                let v = if df > 2.0 {
                    Some(df / (df - 2.0))
                } else if df > 1.0 {
                    Some(f64::INFINITY)
                } else {
                    None
                };
                (m, v)
            }
            Cont::Chi2(d) => (Some(d.freedom()), Some(2.0 * d.freedom())),
            Cont::F(d) => {
                let (n, m) = (d.freedom_1(), d.freedom_2());
                let mean = if m > 2.0 {
                    Some(m / (m - 2.0))
                } else {
                    Some(f64::INFINITY)
                };
                let var = if m > 4.0 {
                    Some(2.0 * m * m * (n + m - 2.0) / (n * (m - 2.0).powi(2) * (m - 4.0)))
                } else if m > 2.0 {
                    Some(f64::INFINITY)
                } else {
                    None
                };
                (mean, var)
            }
            Cont::Uniform(_) => (Some(0.5), Some(1.0 / 12.0)),
            Cont::Exponential(_) => (Some(1.0), Some(1.0)),
            Cont::Gamma(d) => (Some(d.shape()), Some(d.shape())),
            Cont::Beta(d) => {
                let (a, b) = (d.shape_a(), d.shape_b());
                (
                    Some(a / (a + b)),
                    Some(a * b / ((a + b).powi(2) * (a + b + 1.0))),
                )
            }
            Cont::LogNormal(_, s) => {
                let s2 = s * s;
                (Some((s2 / 2.0).exp()), Some(s2.exp_m1() * s2.exp()))
            }
            Cont::Weibull(_, c) => {
                let g1 = gamma(1.0 + 1.0 / c);
                (Some(g1), Some(gamma(1.0 + 2.0 / c) - g1 * g1))
            }
            Cont::Cauchy => (None, None),
        }
    }
    fn sample(&self, rng: &mut rand_pcg::Pcg64) -> f64 {
        match self {
            Cont::Normal(d) => d.sample(rng),
            Cont::T(d) => d.sample(rng),
            Cont::Chi2(d) => d.sample(rng),
            Cont::F(d) => d.sample(rng),
            Cont::Uniform(d) => d.sample(rng),
            Cont::Exponential(d) => d.sample(rng),
            Cont::Gamma(d) => d.sample(rng),
            Cont::Beta(d) => d.sample(rng),
            Cont::LogNormal(d, _) => d.sample(rng),
            Cont::Weibull(d, _) => d.sample(rng),
            Cont::Cauchy => {
                let u: f64 = rand::RngExt::random(rng);
                (PI * (u - 0.5)).tan()
            }
        }
    }
}

/// `(P(X ≤ k), P(X > k))` for X ~ Binomial(n, p): `(I_q(n-k, k+1), I_p(k+1, n-k))`.
fn binomial_cdf_sf(d: &Binomial, k: u64) -> (f64, f64) {
    let n = d.n();
    if k >= n {
        return (1.0, 0.0);
    }
    let p = d.p();
    crate::special::beta_reg_pair((n - k) as f64, k as f64 + 1.0, 1.0 - p, p)
}

impl Disc {
    fn pmf(&self, k: u64) -> f64 {
        match self {
            Disc::Geometric(d) => d.pmf(k),
            _ => self.ln_pmf(k).exp(),
        }
    }
    /// The log mass, by Loader's saddle-point densities (R's `dbinom_raw`, `dpois_raw`, `dnbinom`,
    /// `dhyper`): full precision for any n, where ln Γ differences lose (n·ε) and statrs' hypergeometric
    /// pmf overflows.
    fn ln_pmf(&self, k: u64) -> f64 {
        use crate::special::{bd0, ln_dbinom, ln_dbinom_split, stirlerr};
        let (lo, hi) = self.support();
        let kf = k as f64;
        if kf < lo || kf > hi {
            return f64::NEG_INFINITY;
        }
        match self {
            Disc::Binomial(d) => ln_dbinom(kf, d.n() as f64, d.p(), 1.0 - d.p()),
            Disc::Poisson(None) => {
                if k == 0 {
                    0.0
                } else {
                    f64::NEG_INFINITY
                }
            }
            Disc::Poisson(Some(d)) => {
                let lambda = d.lambda();
                if k == 0 {
                    -lambda
                } else {
                    -stirlerr(kf) - bd0(kf, lambda) - 0.5 * (2.0 * std::f64::consts::PI * kf).ln()
                }
            }
            Disc::Geometric(d) => d.ln_pmf(k),
            Disc::Hypergeometric(d) => {
                let (m, r, n) = (
                    d.population() as f64,
                    d.successes() as f64,
                    d.draws() as f64,
                );
                let b = m - r;
                let p = n / m;
                let q = (m - n) / m;
                ln_dbinom(kf, r, p, q) + ln_dbinom(n - kf, b, p, q) - ln_dbinom(n, m, p, q)
            }
            Disc::NegativeBinomial(d) => {
                let (r, p) = (d.r(), d.p());
                (r / (r + kf)).ln() + ln_dbinom_split(r, kf, p, 1.0 - p)
            }
        }
    }
    fn cdf(&self, k: u64) -> f64 {
        match self {
            Disc::Binomial(d) => binomial_cdf_sf(d, k).0,
            Disc::Poisson(None) => 1.0,
            Disc::Poisson(Some(d)) => crate::incgamma::gamma_pq(k as f64 + 1.0, d.lambda()).1,
            Disc::Geometric(d) => d.cdf(k),
            Disc::Hypergeometric(d) => d.cdf(k),
            Disc::NegativeBinomial(d) => {
                crate::special::beta_reg_pair(d.r(), k as f64 + 1.0, d.p(), 1.0 - d.p()).0
            }
        }
    }
    fn sf(&self, k: u64) -> f64 {
        match self {
            Disc::Binomial(d) => binomial_cdf_sf(d, k).1,
            Disc::Poisson(None) => 0.0,
            Disc::Poisson(Some(d)) => crate::incgamma::gamma_pq(k as f64 + 1.0, d.lambda()).0,
            Disc::Geometric(d) => d.sf(k),
            Disc::Hypergeometric(d) => d.sf(k),
            Disc::NegativeBinomial(d) => {
                crate::special::beta_reg_pair(d.r(), k as f64 + 1.0, d.p(), 1.0 - d.p()).1
            }
        }
    }
    fn support(&self) -> (f64, f64) {
        use statrs::statistics::{Max, Min};
        match self {
            Disc::Binomial(d) => (d.min() as f64, d.max() as f64),
            Disc::Poisson(_) | Disc::NegativeBinomial(_) => (0.0, f64::INFINITY),
            Disc::Geometric(_) => (1.0, f64::INFINITY),
            Disc::Hypergeometric(d) => (d.min() as f64, d.max() as f64),
        }
    }
    fn moments(&self) -> (f64, f64) {
        match self {
            Disc::Binomial(d) => {
                let (n, p) = (d.n() as f64, d.p());
                (n * p, n * p * (1.0 - p))
            }
            Disc::Poisson(None) => (0.0, 0.0),
            Disc::Poisson(Some(d)) => (d.lambda(), d.lambda()),
            Disc::Geometric(d) => (1.0 / d.p(), (1.0 - d.p()) / (d.p() * d.p())),
            Disc::Hypergeometric(d) => {
                let (m, n, k) = (
                    d.population() as f64,
                    d.successes() as f64,
                    d.draws() as f64,
                );
                let var = if m > 1.0 {
                    k * n * (m - n) * (m - k) / (m * m * (m - 1.0))
                } else {
                    0.0
                };
                (k * n / m, var)
            }
            Disc::NegativeBinomial(d) => {
                let (r, p) = (d.r(), d.p());
                (r * (1.0 - p) / p, r * (1.0 - p) / (p * p))
            }
        }
    }
    fn sample(&self, rng: &mut rand_pcg::Pcg64) -> f64 {
        match self {
            Disc::Binomial(d) => rand::distr::Distribution::<f64>::sample(d, rng),
            Disc::Poisson(None) => 0.0,
            Disc::Poisson(Some(d)) => rand::distr::Distribution::<f64>::sample(d, rng),
            Disc::Geometric(d) => rand::distr::Distribution::<f64>::sample(d, rng),
            Disc::Hypergeometric(d) => rand::distr::Distribution::<f64>::sample(d, rng),
            Disc::NegativeBinomial(d) => rand::distr::Distribution::<u64>::sample(d, rng) as f64,
        }
    }
}

/// `distribution`: evaluates `data.function` at `data.x` (a number or an array), or draws a sample.
pub(crate) fn distribution(args: &Args) -> Result<Value, ToolError> {
    let d = Dist::from_data(args.data)?;
    let function = match args.data.get("function") {
        Some(Value::String(s)) => s.to_ascii_lowercase(),
        Some(v) => {
            return Err(ToolError::invalid_params(format!(
                "`data.function` must be one of {}, not {}",
                FUNCTIONS.join(", "),
                short(v)
            )))
        }
        None => return Err(ToolError::invalid_params("`data.function` is required")),
    };
    let (mean, var) = d.moments();
    let undefined = |what: &str| {
        ToolError::domain(format!(
            "the {what} of this `{}` distribution is undefined",
            args.data["distribution"].as_str().unwrap_or_default()
        ))
    };
    let scalar = |x: Option<f64>, what: &str| -> Result<Value, ToolError> {
        match x {
            Some(v) if v.is_finite() => Ok(json!({"value": num(v)})),
            Some(_) => Err(ToolError::domain(format!("the {what} is infinite"))),
            None => Err(undefined(what)),
        }
    };
    match function.as_str() {
        "mean" => return scalar(mean, "mean"),
        "var" => return scalar(var, "variance"),
        "std" => return scalar(var.map(f64::sqrt), "standard deviation"),
        "median" => return Ok(json!({"value": num(d.ppf(0.5))})),
        "sample" => return sample(&d, args),
        _ => {}
    }
    let f: Box<dyn Fn(f64) -> Result<f64, ToolError>> = match function.as_str() {
        "pdf" | "pmf" => Box::new(|x| Ok(d.density(x))),
        "logpdf" | "logpmf" => Box::new(|x| Ok(d.ln_density(x))),
        "cdf" => Box::new(|x| Ok(d.cdf(x))),
        "sf" => Box::new(|x| Ok(d.sf(x))),
        "logcdf" => Box::new(|x| Ok(d.ln_cdf(x))),
        "logsf" => Box::new(|x| Ok(d.ln_sf(x))),
        "ppf" | "isf" => {
            let is_ppf = function == "ppf";
            let name = function.clone();
            Box::new(move |q| {
                if !(0.0..=1.0).contains(&q) {
                    return Err(ToolError::domain(format!(
                        "{name} needs a probability in [0, 1], got {q}"
                    )));
                }
                Ok(if is_ppf { d.ppf(q) } else { d.isf(q) })
            })
        }
        other => {
            return Err(ToolError::invalid_params(format!(
                "unknown function \"{other}\"; known: {}",
                FUNCTIONS.join(", ")
            )))
        }
    };
    // A value no probability can have means a series did not converge for these parameters: an error,
    // never a number.
    let is_prob = matches!(function.as_str(), "cdf" | "sf" | "pmf");
    let is_density = matches!(function.as_str(), "pdf" | "pmf");
    let checked = |x: f64| -> Result<f64, ToolError> {
        let v = f(x)?;
        let bad = v.is_nan() || (is_prob && !(0.0..=1.0).contains(&v)) || (is_density && v < 0.0);
        if bad {
            return Err(ToolError::domain(format!(
                "{function} at x = {x} cannot be computed accurately for these parameters (an internal \
                 series did not converge); the parameters may be too large"
            )));
        }
        Ok(v)
    };
    let x = args.field("x")?;
    match x {
        Value::Array(_) => {
            let xs = crate::input::numbers(x, "data.x", args.ctx)?;
            let mut out = Vec::with_capacity(xs.len());
            // Quantiles take ~100 cdf evaluations each: poll the deadline at every element for them.
            let every = if matches!(function.as_str(), "ppf" | "isf") {
                1
            } else {
                1024
            };
            for (i, &x) in xs.iter().enumerate() {
                if i % every == 0 {
                    args.ctx.checkpoint()?;
                }
                out.push(checked(x)?);
            }
            Ok(json!({"value": nums(&out)}))
        }
        _ => Ok(json!({"value": num(checked(finite(x, "data.x")?)?)})),
    }
}

/// `options.n` draws (default 1) from a Pcg64 seeded with `options.seed`, else the call's seed.
fn sample(d: &Dist, args: &Args) -> Result<Value, ToolError> {
    let n = match args.options.get("n") {
        None | Some(Value::Null) => 1,
        Some(v) => count(v, "options.n")?,
    };
    if n == 0 {
        return Err(ToolError::invalid_params("`options.n` must be at least 1"));
    }
    crate::input::check_len(
        usize::try_from(n).unwrap_or(usize::MAX),
        "options.n",
        args.ctx,
    )?;
    args.ctx.limits.check_result_items(n, 4, "options.n")?;
    let seed = match args.options.get("seed") {
        None | Some(Value::Null) => args.ctx.seed,
        Some(v) => count(v, "options.seed")?,
    };
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        if i % 4096 == 0 {
            args.ctx.checkpoint()?;
        }
        out.push(d.sample(&mut rng));
    }
    args.ctx.limits.check_floats(&out, "the sample")?;
    Ok(json!({"value": nums(&out), "seed": seed}))
}
