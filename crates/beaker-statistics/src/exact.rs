//! Exact null distributions of rank statistics, built as probabilities (every step a convex combination,
//! so nothing overflows and tails keep their relative precision), sized against the limits first.

use beaker_core::{CallContext, ToolError};

/// Most cells of work (items × states) one exact distribution may take: about a second.
const MAX_WORK: u64 = 400_000_000;

fn check_work(work: u64, what: &str, ctx: &CallContext) -> Result<(), ToolError> {
    let cap = MAX_WORK.min(ctx.limits.max_evaluations.saturating_mul(40));
    if work > cap {
        return Err(ToolError::limit(format!(
            "the exact distribution of {what} needs about {work} steps; the limit is {cap} \
             (use method \"asymptotic\", or raise max_evaluations)"
        )));
    }
    Ok(())
}

/// `P(U = u)` for u in 0..=n1·n2, U the Mann–Whitney statistic of two samples of sizes n1, n2 without ties.
///
/// Built as the distribution of the rank sum of a random n1-subset of {1..N}: after item i, `p[k][s]` is
/// the probability that a random k-subset of {1..i} sums to s.
pub(crate) fn mann_whitney_pmf(
    n1: usize,
    n2: usize,
    ctx: &CallContext,
) -> Result<Vec<f64>, ToolError> {
    let (small, n) = (n1.min(n2), n1 + n2);
    // U of the smaller sample has the same distribution as U of the other (symmetry u ↔ n1·n2 - u).
    let umax = n1 * n2;
    let work = (n as u64) * (small as u64 + 1) * (umax as u64 + 1);
    check_work(work, "the Mann-Whitney U statistic", ctx)?;
    // p[k][u]: u = (sum of chosen ranks) - k(k+1)/2, in 0..=k·(i-k).
    let width = umax + 1;
    let mut p = vec![0.0f64; (small + 1) * width];
    p[0] = 1.0;
    for i in 1..=n {
        ctx.checkpoint()?;
        // Choosing item i as the k-th element adds (i - k) to u; not choosing leaves u.
        for k in (0..=small.min(i)).rev() {
            let keep = if i > k {
                (i - k) as f64 / i as f64
            } else {
                0.0
            };
            let take = k as f64 / i as f64;
            for u in (0..width).rev() {
                let mut v = p[k * width + u] * keep;
                if k > 0 && u >= i - k {
                    v += p[(k - 1) * width + u - (i - k)] * take;
                }
                p[k * width + u] = v;
            }
        }
    }
    Ok(p[small * width..(small + 1) * width].to_vec())
}

/// `P(T = t/2)` for the signed-rank statistic T = Σ ranks with a positive sign, when each of the given
/// ranks (doubled, so average ranks of ties are integers) is positive with probability 1/2 independently.
pub(crate) fn signed_rank_pmf(ranks2: &[u64], ctx: &CallContext) -> Result<Vec<f64>, ToolError> {
    let total: u64 = ranks2.iter().sum();
    check_work(
        ranks2.len() as u64 * (total + 1),
        "the signed-rank statistic",
        ctx,
    )?;
    let mut p = vec![0.0f64; total as usize + 1];
    p[0] = 1.0;
    let mut reach = 0usize;
    for &r in ranks2 {
        ctx.checkpoint()?;
        let r = r as usize;
        reach += r;
        for s in (0..=reach).rev() {
            let moved = if s >= r { p[s - r] } else { 0.0 };
            p[s] = 0.5 * p[s] + 0.5 * moved;
        }
    }
    Ok(p)
}

/// Two-sided `P(C ≤ c)`·2 and `P(C = c)` for the number of concordant pairs C of n untied pairs (a
/// Mahonian distribution), as SciPy's `_kendall_p_exact` computes them (normalised at every step).
pub(crate) fn kendall_lower(
    n: usize,
    c: usize,
    ctx: &CallContext,
) -> Result<(f64, f64), ToolError> {
    check_work(n as u64 * (c as u64 + 1), "Kendall's tau", ctx)?;
    let mut new = vec![0.0f64; c + 1];
    new[0] = 1.0;
    if c >= 1 {
        new[1] = 1.0;
    }
    for j in 3..=n {
        ctx.checkpoint()?;
        let mut acc = 0.0;
        for v in new.iter_mut() {
            acc += *v;
            *v = acc / j as f64;
        }
        if j <= c {
            for i in (j..=c).rev() {
                new[i] -= new[i - j];
            }
        }
    }
    let prob: f64 = new.iter().sum();
    Ok((prob, new[c] / 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use beaker_core::Limits;

    fn ctx() -> CallContext {
        CallContext::new(Limits::default())
    }

    #[test]
    fn mann_whitney_small_case_by_enumeration() {
        // n1 = 2, n2 = 2: the 6 arrangements give U = 0,1,2,2,3,4.
        let p = mann_whitney_pmf(2, 2, &ctx()).unwrap();
        let want = [1.0, 1.0, 2.0, 1.0, 1.0].map(|c| c / 6.0);
        for (a, b) in p.iter().zip(want) {
            assert!((a - b).abs() < 1e-15, "{p:?}");
        }
        // Asymmetric sizes give the same distribution whichever sample is first.
        let a = mann_whitney_pmf(3, 5, &ctx()).unwrap();
        let b = mann_whitney_pmf(5, 3, &ctx()).unwrap();
        assert_eq!(a, b);
        assert!((a.iter().sum::<f64>() - 1.0).abs() < 1e-14);
    }

    #[test]
    fn signed_rank_n3() {
        // Ranks 1,2,3 (doubled 2,4,6): T in {0,1,2,3,3,4,5,6} over 8 sign patterns.
        let p = signed_rank_pmf(&[2, 4, 6], &ctx()).unwrap();
        let t3 = p[6];
        assert!((t3 - 2.0 / 8.0).abs() < 1e-15);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn oversized_exact_distributions_are_refused() {
        let err = mann_whitney_pmf(5000, 5000, &ctx()).unwrap_err();
        assert_eq!(err.kind, beaker_core::ErrorKind::LimitExceeded);
    }
}
