//! Numerically careful building blocks: compensated sums, two-pass moments, ranks with ties.

/// A Neumaier-compensated sum: exact to about one rounding for any order of terms.
pub(crate) fn sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for x in xs {
        let t = s + x;
        if s.abs() >= x.abs() {
            c += (s - t) + x;
        } else {
            c += (x - t) + s;
        }
        s = t;
    }
    s + c
}

/// The mean, with a second pass that removes the first pass's rounding.
pub(crate) fn mean(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let m = sum(xs.iter().copied()) / n;
    m + sum(xs.iter().map(|x| x - m)) / n
}

/// Deviations from the mean, accurate even when the mean itself is not representable (1e12 + 0.1k):
/// values are first shifted by a data point (exact for values within a factor of two of it, by
/// Sterbenz's lemma), and the small shifted mean is subtracted from the small shifted values.
pub(crate) fn deviations(xs: &[f64]) -> Vec<f64> {
    let Some(&c) = xs.first() else {
        return Vec::new();
    };
    let shifted: Vec<f64> = xs.iter().map(|x| x - c).collect();
    let md = mean(&shifted);
    shifted.iter().map(|s| s - md).collect()
}

/// The sum of squared deviations from the mean, `Σ(x - x̄)²`.
pub(crate) fn ss(xs: &[f64]) -> f64 {
    sum(deviations(xs).iter().map(|d| d * d))
}

/// The variance with `ddof` degrees of freedom removed (caller ensures `n > ddof`).
pub(crate) fn var(xs: &[f64], ddof: f64) -> f64 {
    ss(xs) / (xs.len() as f64 - ddof)
}

/// The central moment of order `k` (divided by n) from precomputed deviations.
pub(crate) fn central_moment(dev: &[f64], k: i32) -> f64 {
    sum(dev.iter().map(|d| d.powi(k))) / dev.len() as f64
}

/// The pieces of a two-sample t statistic: the difference of means and its standard error and degrees of
/// freedom, pooled or Welch's.
pub(crate) struct TwoSample {
    /// mean(x) - mean(y), computed on data shifted by a common point so offset data keep their digits.
    pub diff: f64,
    /// The standard error of `diff`; 0 when both samples are constant.
    pub se: f64,
    /// Degrees of freedom: n1 + n2 - 2 pooled, Welch–Satterthwaite otherwise.
    pub df: f64,
}

/// Two non-empty samples compared by their means (a one-value sample has variance 0, which only the
/// pooled form can use).
pub(crate) fn two_sample(x: &[f64], y: &[f64], equal_var: bool) -> TwoSample {
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    let v = |z: &[f64], n: f64| if n > 1.0 { ss(z) / (n - 1.0) } else { 0.0 };
    let (v1, v2) = (v(x, n1), v(y, n2));
    let c = x[0];
    let shifted_mean = |z: &[f64]| mean(&z.iter().map(|v| v - c).collect::<Vec<_>>());
    let diff = shifted_mean(x) - shifted_mean(y);
    let (se, df) = if equal_var {
        let df = n1 + n2 - 2.0;
        let sp2 = ((n1 - 1.0) * v1 + (n2 - 1.0) * v2) / df;
        ((sp2 * (1.0 / n1 + 1.0 / n2)).sqrt(), df)
    } else {
        let (a, b) = (v1 / n1, v2 / n2);
        let df = (a + b).powi(2) / (a * a / (n1 - 1.0) + b * b / (n2 - 1.0));
        ((a + b).sqrt(), df)
    };
    TwoSample { diff, se, df }
}

/// Ranks from 1, ties given their average rank (SciPy's `rankdata(method='average')`), and the sizes of
/// the tie groups (length > 1) for tie corrections.
pub(crate) fn rank(xs: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_unstable_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i + 1;
        while j < idx.len() && xs[idx[j]] == xs[idx[i]] {
            j += 1;
        }
        // Positions i..j (0-based) share the average of ranks i+1..=j.
        let r = (i + 1 + j) as f64 / 2.0;
        for &k in &idx[i..j] {
            ranks[k] = r;
        }
        if j - i > 1 {
            ties.push(j - i);
        }
        i = j;
    }
    (ranks, ties)
}

/// `Σ (t³ - t)` over tie groups, the usual tie-correction term.
pub(crate) fn tie_term(ties: &[usize]) -> f64 {
    ties.iter().map(|&t| (t as f64).powi(3) - t as f64).sum()
}

/// A sorted copy (NaN cannot occur: inputs are checked finite).
pub(crate) fn sorted(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// The `q`-th quantile (0..=1) of sorted data with NumPy's default linear method (Hyndman–Fan R-7),
/// interpolated as NumPy's `_lerp` does so results agree to the last bit in most cases.
pub(crate) fn quantile_sorted(s: &[f64], q: f64) -> f64 {
    let n = s.len();
    if n == 1 {
        return s[0];
    }
    let h = (n - 1) as f64 * q;
    let lo = (h.floor() as usize).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let t = h - lo as f64;
    let (a, b) = (s[lo], s[hi]);
    let d = b - a;
    if t >= 0.5 {
        b - d * (1.0 - t)
    } else {
        a + d * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_average_ties() {
        let (r, ties) = rank(&[10.0, 20.0, 10.0, 30.0, 20.0, 20.0]);
        assert_eq!(r, vec![1.5, 4.0, 1.5, 6.0, 4.0, 4.0]);
        assert_eq!(ties, vec![2, 3]);
        assert_eq!(tie_term(&ties), 6.0 + 24.0);
    }

    #[test]
    fn compensated_mean_of_offset_data() {
        // 1e9 + {1/8, 2/8, 3/8} (exact doubles): the sum of squares about a rounded mean would be off.
        let xs = [1e9 + 0.125, 1e9 + 0.25, 1e9 + 0.375];
        assert_eq!(mean(&xs), 1e9 + 0.25);
        assert_eq!(var(&xs, 1.0), 0.015625);
    }

    #[test]
    fn quantiles_match_numpy_linear() {
        let s = [1.0, 2.0, 3.0, 4.0];
        // numpy.percentile([1,2,3,4], [0, 25, 50, 90, 100]) = [1, 1.75, 2.5, 3.7, 4]
        let got: Vec<f64> = [0.0, 0.25, 0.5, 0.9, 1.0]
            .iter()
            .map(|&q| quantile_sorted(&s, q))
            .collect();
        let want = [1.0, 1.75, 2.5, 3.7, 4.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-15, "{g} vs {w}");
        }
    }
}
