//! The periodic table: `elements.tsv` (atomic weights, groups, periods, blocks, electronegativities; its
//! header names the sources) and ground-state electron configurations by the Madelung rule with the
//! measured exceptions.

use std::sync::OnceLock;

/// One element of the table.
#[derive(Debug, Clone)]
pub(crate) struct Element {
    pub number: u32,
    pub symbol: &'static str,
    pub name: &'static str,
    /// g/mol: the CIAAW standard atomic weight, its conventional value for interval elements, or the mass
    /// number of the longest-lived isotope (see `weight_kind`).
    pub weight: f64,
    /// The weight exactly as the table writes it (`12.011` is 12011/1000): molar masses sum it exactly.
    pub weight_exact: rug::Rational,
    /// `standard`, `conventional` or `mass_number`.
    pub weight_kind: &'static str,
    pub group: Option<u32>,
    pub period: u32,
    pub block: &'static str,
    /// Pauling electronegativity, when there is one.
    pub electronegativity: Option<f64>,
}

const TABLE: &str = include_str!("elements.tsv");

/// Every element, indexed by atomic number − 1.
pub(crate) fn all() -> &'static [Element] {
    static ELEMENTS: OnceLock<Vec<Element>> = OnceLock::new();
    ELEMENTS.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(parse_line)
            .collect()
    })
}

fn parse_line(line: &'static str) -> Option<Element> {
    let f: Vec<&'static str> = line.split('\t').collect();
    if f.len() < 9 {
        return None;
    }
    Some(Element {
        number: f[0].parse().ok()?,
        symbol: f[1],
        name: f[2],
        weight: f[3].parse().ok()?,
        weight_exact: beaker_units::expr::decimal(f[3], 10)?,
        weight_kind: f[4],
        group: f[5].parse().ok(),
        period: f[6].parse().ok()?,
        block: f[7],
        electronegativity: f[8].trim().parse().ok(),
    })
}

/// The element with this symbol (case-sensitive, as chemistry writes it).
pub(crate) fn by_symbol(symbol: &str) -> Option<&'static Element> {
    all().iter().find(|e| e.symbol == symbol)
}

/// The element with this name (any case; `aluminium`/`aluminum`, `caesium`/`cesium`, `sulphur` accepted).
pub(crate) fn by_name(name: &str) -> Option<&'static Element> {
    let name = name.trim().to_ascii_lowercase();
    let name = match name.as_str() {
        "aluminum" => "aluminium",
        "cesium" => "caesium",
        "sulphur" => "sulfur",
        n => n,
    };
    all().iter().find(|e| e.name.eq_ignore_ascii_case(name))
}

/// The element with this atomic number.
pub(crate) fn by_number(z: u64) -> Option<&'static Element> {
    let i = usize::try_from(z).ok()?.checked_sub(1)?;
    all().get(i)
}

/// Subshell letters by azimuthal quantum number.
const L: [char; 4] = ['s', 'p', 'd', 'f'];

/// Ground states that differ from the Madelung filling (NIST ASD), as changes to it: (Z, [(n, l, Δ)]).
/// A change to one subshell: (n, l, electrons added).
type Change = (u32, usize, i32);

const EXCEPTIONS: &[(u32, &[Change])] = &[
    (24, &[(4, 0, -1), (3, 2, 1)]),  // Cr 3d5 4s1
    (29, &[(4, 0, -1), (3, 2, 1)]),  // Cu 3d10 4s1
    (41, &[(5, 0, -1), (4, 2, 1)]),  // Nb 4d4 5s1
    (42, &[(5, 0, -1), (4, 2, 1)]),  // Mo 4d5 5s1
    (44, &[(5, 0, -1), (4, 2, 1)]),  // Ru 4d7 5s1
    (45, &[(5, 0, -1), (4, 2, 1)]),  // Rh 4d8 5s1
    (46, &[(5, 0, -2), (4, 2, 2)]),  // Pd 4d10
    (47, &[(5, 0, -1), (4, 2, 1)]),  // Ag 4d10 5s1
    (57, &[(4, 3, -1), (5, 2, 1)]),  // La 5d1 6s2
    (58, &[(4, 3, -1), (5, 2, 1)]),  // Ce 4f1 5d1 6s2
    (64, &[(4, 3, -1), (5, 2, 1)]),  // Gd 4f7 5d1 6s2
    (78, &[(6, 0, -1), (5, 2, 1)]),  // Pt 5d9 6s1
    (79, &[(6, 0, -1), (5, 2, 1)]),  // Au 5d10 6s1
    (89, &[(5, 3, -1), (6, 2, 1)]),  // Ac 6d1 7s2
    (90, &[(5, 3, -2), (6, 2, 2)]),  // Th 6d2 7s2
    (91, &[(5, 3, -1), (6, 2, 1)]),  // Pa 5f2 6d1 7s2
    (92, &[(5, 3, -1), (6, 2, 1)]),  // U 5f3 6d1 7s2
    (93, &[(5, 3, -1), (6, 2, 1)]),  // Np 5f4 6d1 7s2
    (96, &[(5, 3, -1), (6, 2, 1)]),  // Cm 5f7 6d1 7s2
    (103, &[(6, 2, -1), (7, 1, 1)]), // Lr 5f14 7s2 7p1
];

/// Subshells as (n, l, electrons), ordered by n then l.
fn configuration(z: u32) -> Vec<(u32, usize, i32)> {
    // Madelung order: by n + l, then n.
    let mut order: Vec<(u32, usize)> = (1..=7u32)
        .flat_map(|n| {
            (0..4usize)
                .filter(move |&l| (l as u32) < n)
                .map(move |l| (n, l))
        })
        .collect();
    order.sort_by_key(|&(n, l)| (n + l as u32, n));
    let mut left = z as i32;
    let mut shells: Vec<(u32, usize, i32)> = Vec::new();
    for (n, l) in order {
        if left == 0 {
            break;
        }
        let take = left.min(4 * l as i32 + 2);
        shells.push((n, l, take));
        left -= take;
    }
    if let Some((_, changes)) = EXCEPTIONS.iter().find(|(e, _)| *e == z) {
        for &(n, l, delta) in *changes {
            match shells.iter_mut().find(|s| s.0 == n && s.1 == l) {
                Some(s) => s.2 += delta,
                None => shells.push((n, l, delta)),
            }
        }
    }
    shells.retain(|s| s.2 > 0);
    shells.sort_by_key(|&(n, l, _)| (n, l));
    shells
}

fn write(shells: &[(u32, usize, i32)]) -> String {
    shells
        .iter()
        .map(|&(n, l, c)| format!("{n}{}{c}", L[l]))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The ground-state configuration in full (`1s2 2s2 2p6 3s2 3p6 3d5 4s1`).
pub(crate) fn configuration_full(z: u32) -> String {
    write(&configuration(z))
}

/// The ground-state configuration after the noble-gas core (`[Ar] 3d5 4s1`).
pub(crate) fn configuration_short(z: u32) -> String {
    const CORES: [(u32, &str); 6] = [
        (86, "Rn"),
        (54, "Xe"),
        (36, "Kr"),
        (18, "Ar"),
        (10, "Ne"),
        (2, "He"),
    ];
    let Some(&(core_z, core)) = CORES.iter().find(|(c, _)| *c < z) else {
        return configuration_full(z);
    };
    let core_shells = configuration(core_z);
    let rest: Vec<(u32, usize, i32)> = configuration(z)
        .into_iter()
        .filter(|s| !core_shells.contains(s))
        .collect();
    format!("[{core}] {}", write(&rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_whole_and_ordered() {
        let all = all();
        assert_eq!(all.len(), 118);
        for (i, e) in all.iter().enumerate() {
            assert_eq!(e.number as usize, i + 1, "{}", e.symbol);
            assert!(e.weight > 0.0);
        }
    }

    #[test]
    fn configurations() {
        assert_eq!(configuration_full(1), "1s1");
        assert_eq!(configuration_short(24), "[Ar] 3d5 4s1");
        assert_eq!(configuration_short(26), "[Ar] 3d6 4s2");
        assert_eq!(configuration_short(79), "[Xe] 4f14 5d10 6s1");
        assert_eq!(configuration_short(103), "[Rn] 5f14 7s2 7p1");
        assert_eq!(configuration_short(10), "[He] 2s2 2p6");
    }
}
