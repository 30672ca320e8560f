//! Balancing chemical equations: the null space of the element-and-charge matrix in exact rationals, scaled to
//! the smallest positive integers.

use super::formula::{parse_species, Species};
use beaker_core::ToolError;
use rug::{Integer, Rational};

/// Most species in one equation.
pub(crate) const MAX_SPECIES: usize = 64;

/// An equation as written: its species on each side.
#[derive(Debug, Clone)]
pub(crate) struct Equation {
    pub reactants: Vec<Species>,
    pub products: Vec<Species>,
}

impl Equation {
    /// Every species, reactants first.
    pub(crate) fn species(&self) -> impl Iterator<Item = &Species> {
        self.reactants.iter().chain(&self.products)
    }

    /// The index of a species named `name` (as written, or by its formula), and whether it is a reactant.
    pub(crate) fn find(&self, name: &str) -> Result<(usize, bool), ToolError> {
        let want = name.trim();
        let parsed = parse_species(want).ok();
        for (i, s) in self.species().enumerate() {
            let same_formula = parsed
                .as_ref()
                .is_some_and(|p| p.counts == s.counts && p.charge == s.charge);
            if s.text == want || same_formula {
                return Ok((i, i < self.reactants.len()));
            }
        }
        let names: Vec<&str> = self.species().map(|s| s.text.as_str()).collect();
        Err(ToolError::invalid_params(format!(
            "`{want}` is not in the equation (its species: {})",
            names.join(", ")
        )))
    }
}

/// Arrows, longest first so `<=>` is not read as `=`.
const ARROWS: [&str; 14] = [
    "<=>", "<->", "-->", "==>", "->", "=>", "→", "⟶", "⇌", "⇄", "⇋", "↔", "⟷", "=",
];

/// Splits an equation into its two sides and species.
pub(crate) fn parse_equation(text: &str) -> Result<Equation, ToolError> {
    // A sentence's full stop or semicolon after the last product is not part of it.
    let text = text.trim().trim_end_matches(['.', ';']).trim_end();
    let (left, right) = ARROWS
        .iter()
        .find_map(|a| text.split_once(a))
        .ok_or_else(|| {
            ToolError::invalid_params(format!(
                "equation `{text}`: no arrow (write `->`, `=`, `→` or `<=>` between reactants and products)"
            ))
        })?;
    if ARROWS.iter().any(|a| right.contains(a)) {
        return Err(ToolError::invalid_params(format!(
            "equation `{text}`: more than one arrow"
        )));
    }
    let side = |s: &str, which: &str| -> Result<Vec<Species>, ToolError> {
        let parts = split_plus(s);
        if parts.iter().all(|p| p.trim().is_empty()) {
            return Err(ToolError::invalid_params(format!(
                "equation `{text}`: no {which}"
            )));
        }
        parts
            .iter()
            .map(|p| {
                parse_species(p).map_err(|e| {
                    if p.contains('+') || p.contains(' ') {
                        ToolError::new(
                            e.kind,
                            format!(
                                "{} (species are separated by ` + ` with a space on both sides)",
                                e.message
                            ),
                        )
                    } else {
                        e
                    }
                })
            })
            .collect()
    };
    let eq = Equation {
        reactants: side(left, "reactants")?,
        products: side(right, "products")?,
    };
    if eq.species().count() > MAX_SPECIES {
        return Err(ToolError::limit(format!(
            "an equation has more than {MAX_SPECIES} species"
        )));
    }
    Ok(eq)
}

/// Splits a side at ` + ` (a plus with whitespace on both sides; `Na+ + Cl-` keeps its charges).
fn split_plus(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut parts = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let spaced = i > 0
            && i + 1 < chars.len()
            && chars[i - 1].is_whitespace()
            && chars[i + 1].is_whitespace();
        if c == '+' && spaced {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    parts.push(cur);
    parts.into_iter().map(|p| p.trim().to_string()).collect()
}

/// The smallest positive integer coefficients (reactants, then products) that balance every element and the
/// charge.
pub(crate) fn balance(eq: &Equation) -> Result<Vec<Integer>, ToolError> {
    let species: Vec<&Species> = eq.species().collect();
    let nr = eq.reactants.len();
    for s in &species {
        if s.counts.is_empty() && !s.is_electron() {
            return Err(ToolError::invalid_params(format!(
                "`{}` has no elements",
                s.text
            )));
        }
    }
    // An element on one side only can never balance; say which.
    let mut elements: Vec<u32> = species
        .iter()
        .flat_map(|s| s.counts.keys().copied())
        .collect();
    elements.sort_unstable();
    elements.dedup();
    for &z in &elements {
        let left = species[..nr].iter().any(|s| s.counts.contains_key(&z));
        let right = species[nr..].iter().any(|s| s.counts.contains_key(&z));
        if left != right {
            let sym = super::elements::by_number(u64::from(z)).map_or("?", |e| e.symbol);
            return Err(ToolError::domain(format!(
                "cannot be balanced: {sym} appears only among the {}",
                if left { "reactants" } else { "products" }
            )));
        }
    }
    let mut rows: Vec<Vec<Rational>> = elements
        .iter()
        .map(|z| {
            species
                .iter()
                .enumerate()
                .map(|(j, s)| {
                    let n = s.counts.get(z).copied().unwrap_or(0);
                    Rational::from(if j < nr { n } else { -n })
                })
                .collect()
        })
        .collect();
    if species.iter().any(|s| s.charge != 0) {
        rows.push(
            species
                .iter()
                .enumerate()
                .map(|(j, s)| Rational::from(if j < nr { s.charge } else { -s.charge }))
                .collect(),
        );
    }
    let basis = null_space(rows, species.len());
    let v = match basis.len() {
        0 => {
            return Err(ToolError::domain(
                "cannot be balanced: no coefficients conserve every element and the charge",
            ))
        }
        1 => &basis[0],
        k => {
            return Err(ToolError::domain(format!(
                "more than one independent balance ({k}): the equation combines {k} reactions; split it, or \
                 give the reactions separately"
            )))
        }
    };
    let denoms = v.iter().fold(Integer::from(1), |acc, q| acc.lcm(q.denom()));
    let mut ints: Vec<Integer> = v
        .iter()
        .map(|q| Integer::from(q.numer() * &denoms) / q.denom())
        .collect();
    let g = ints.iter().fold(Integer::new(), |acc, x| acc.gcd(x));
    if g != 0 {
        for x in &mut ints {
            *x /= &g;
        }
    }
    if ints.iter().any(|x| *x == 0) {
        let zero: Vec<&str> = ints
            .iter()
            .zip(&species)
            .filter(|(x, _)| **x == 0)
            .map(|(_, s)| s.text.as_str())
            .collect();
        return Err(ToolError::domain(format!(
            "cannot be balanced: {} would need a coefficient of 0",
            zero.join(", ")
        )));
    }
    let positive = ints.iter().filter(|x| **x > 0).count();
    if positive != 0 && positive != ints.len() {
        return Err(ToolError::domain(
            "cannot be balanced with positive coefficients: some species are on the wrong side",
        ));
    }
    if positive == 0 {
        for x in &mut ints {
            *x = Integer::from(-&*x);
        }
    }
    Ok(ints)
}

/// A basis of the null space of `rows` (each of `n` columns), by reduced row echelon form over ℚ.
fn null_space(mut rows: Vec<Vec<Rational>>, n: usize) -> Vec<Vec<Rational>> {
    let mut pivots: Vec<usize> = Vec::new();
    let mut r = 0;
    for col in 0..n {
        let Some(p) = (r..rows.len()).find(|&i| rows[i][col] != 0) else {
            continue;
        };
        rows.swap(r, p);
        let lead = rows[r][col].clone();
        for x in &mut rows[r] {
            *x /= &lead;
        }
        for i in 0..rows.len() {
            if i != r && rows[i][col] != 0 {
                let f = rows[i][col].clone();
                let pivot_row = rows[r].clone();
                for (x, y) in rows[i].iter_mut().zip(&pivot_row) {
                    *x -= Rational::from(&f * y);
                }
            }
        }
        pivots.push(col);
        r += 1;
        if r == rows.len() {
            break;
        }
    }
    (0..n)
        .filter(|c| !pivots.contains(c))
        .map(|free| {
            let mut v = vec![Rational::new(); n];
            v[free] = Rational::from(1);
            for (i, &pc) in pivots.iter().enumerate() {
                v[pc] = Rational::from(-&rows[i][free]);
            }
            v
        })
        .collect()
}

/// The balanced equation as text: coefficients before species (1 left out), ` -> ` between the sides.
pub(crate) fn render(eq: &Equation, coefficients: &[Integer]) -> String {
    let nr = eq.reactants.len();
    let term = |c: &Integer, s: &Species| {
        if *c == 1 {
            s.text.clone()
        } else {
            format!("{c} {}", s.text)
        }
    };
    let side = |range: std::ops::Range<usize>, list: &[Species]| {
        list.iter()
            .zip(&coefficients[range])
            .map(|(s, c)| term(c, s))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    format!(
        "{} -> {}",
        side(0..nr, &eq.reactants),
        side(nr..coefficients.len(), &eq.products)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coefs(text: &str) -> Result<Vec<i64>, ToolError> {
        let eq = parse_equation(text)?;
        Ok(balance(&eq)?
            .iter()
            .map(|c| c.to_i64().unwrap_or(-1))
            .collect())
    }

    #[test]
    fn balances() {
        assert_eq!(coefs("C3H8 + O2 -> CO2 + H2O").ok(), Some(vec![1, 5, 3, 4]));
        assert_eq!(coefs("H2 + O2 = H2O").ok(), Some(vec![2, 1, 2]));
        assert_eq!(
            coefs("MnO4^- + Fe^2+ + H^+ -> Mn^2+ + Fe^3+ + H2O").ok(),
            Some(vec![1, 5, 8, 1, 5, 4])
        );
        assert_eq!(coefs("Fe^3+ + e- -> Fe^2+").ok(), Some(vec![1, 1, 1]));
    }

    #[test]
    fn refuses_what_cannot_balance() {
        assert!(coefs("H2 -> O2").is_err_and(|e| e.message.contains("only among")));
        assert!(coefs("H2 + O2 -> H2O + H2O2").is_err_and(|e| e.message.contains("more than one")));
        assert!(coefs("H2O").is_err_and(|e| e.message.contains("arrow")));
    }
}
