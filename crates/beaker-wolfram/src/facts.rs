//! The reference tables facts are answered from, compiled into the binary (`data/`, written by
//! `data/make_tables.py` from the publications as registries ship them): CODATA 2022, the IAU's nominal solar
//! and planetary values, and the distances between the Sun, the Moon and the planets over 1900-2050 from JPL's
//! DE421. Each answer names its table.

use std::collections::HashMap;
use std::sync::OnceLock;

/// CODATA 2022's source line.
pub const CODATA_SOURCE: &str =
    "CODATA 2022 recommended values (NIST, 2024), as SciPy 1.17 ships them";
/// The distances' source line.
pub const DISTANCE_SOURCE: &str = "JPL DE421 ephemeris (Folkner et al. 2009), centre to centre (the outer planets' system barycentres), sampled every 6 hours from 1900-01-01 to 2050-01-01, extremes refined to a minute";

/// One CODATA 2022 constant.
#[derive(Debug, Clone)]
pub struct Constant {
    /// Its CODATA name ("speed of light in vacuum").
    pub name: &'static str,
    /// Its value as published, spaces removed ("299792458", "6.62607015e-34").
    pub text: String,
    /// The value.
    pub value: f64,
    /// Its standard uncertainty (0 for exact values), as published.
    pub uncertainty: String,
    /// Its unit in CODATA's notation ("m s^-1"), empty for a number.
    pub unit: &'static str,
    /// Whether it is exact by definition.
    pub exact: bool,
    /// Whether the table prints it cut short ("8.314 462 618..."): `value` is then its float64 derived from the
    /// defining constants, `text` the digits published.
    pub truncated: bool,
}

/// One IAU value (astronomy.tsv).
#[derive(Debug, Clone)]
pub struct Nominal {
    /// Its name ("solar radius").
    pub name: &'static str,
    /// The value.
    pub value: f64,
    /// Its SI unit ("m", "kg").
    pub unit: &'static str,
    /// Where it is defined.
    pub source: &'static str,
}

/// The distance between two bodies over 1900-2050, in km.
#[derive(Debug, Clone, Copy)]
pub struct Distance {
    /// The least.
    pub least: f64,
    /// The time average.
    pub mean: f64,
    /// The greatest.
    pub greatest: f64,
}

/// A fact a question's words name.
#[derive(Debug, Clone)]
pub enum Fact {
    /// A CODATA constant.
    Codata(&'static Constant),
    /// A CODATA constant's negative: the electron's charge is minus the elementary charge.
    Negated(&'static Constant),
    /// An IAU value.
    Iau(&'static Nominal),
}

/// The bodies distances are known between.
pub const BODIES: &[&str] = &[
    "sun", "mercury", "venus", "earth", "moon", "mars", "jupiter", "saturn", "uranus", "neptune",
    "pluto",
];

#[derive(Clone, Copy)]
enum Index {
    Codata(usize),
    Negated(usize),
    Iau(usize),
}

struct Tables {
    codata: Vec<Constant>,
    iau: Vec<Nominal>,
    aliases: HashMap<String, Index>,
    distances: HashMap<(&'static str, &'static str), Distance>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        // The tables are compiled in and read whole by the crate's tests: a malformed line is a build defect.
        let mut codata: Vec<Constant> = include_str!("../data/codata-2022.txt")
            .lines()
            .filter_map(codata_line)
            .collect();
        // Exact constants the table prints cut short carry their whole float64 value (`value`); `text` stays
        // as published.
        for f in rows(include_str!("../data/codata-2022-exact.tsv")) {
            if let (Some(name), Some(v)) = (f.first(), f.get(1).and_then(|v| v.parse::<f64>().ok()))
            {
                if let Some(c) = codata.iter_mut().find(|c| c.name == *name) {
                    c.value = v;
                    c.truncated = true;
                }
            }
        }
        let iau: Vec<Nominal> = rows(include_str!("../data/astronomy.tsv"))
            .filter_map(|f| {
                Some(Nominal {
                    name: f.first()?,
                    value: f.get(1)?.parse().ok()?,
                    unit: f.get(2)?,
                    source: f.get(3)?,
                })
            })
            .collect();
        let mut distances = HashMap::new();
        for f in rows(include_str!("../data/distances.tsv")) {
            let n: Vec<f64> = f.iter().skip(2).filter_map(|v| v.parse().ok()).collect();
            if let (Some(a), Some(b), &[least, mean, greatest]) = (f.first(), f.get(1), &n[..]) {
                let d = Distance {
                    least,
                    mean,
                    greatest,
                };
                distances.insert((*a, *b), d);
                distances.insert((*b, *a), d);
            }
        }
        let mut aliases = HashMap::new();
        for (i, c) in codata.iter().enumerate() {
            aliases.insert(fold(c.name), Index::Codata(i));
            // NIST abbreviates ("electron mag. mom."); people write the words.
            let spelled = c
                .name
                .replace("mag. mom.", "magnetic moment")
                .replace("mag.", "magnetic");
            aliases.entry(fold(&spelled)).or_insert(Index::Codata(i));
        }
        for (i, n) in iau.iter().enumerate() {
            aliases.insert(fold(n.name), Index::Iau(i));
        }
        for f in rows(include_str!("../data/aliases.tsv")) {
            let (Some(alias), Some(table), Some(name)) = (f.first(), f.get(1), f.get(2)) else {
                continue;
            };
            let index = match *table {
                "codata" => codata
                    .iter()
                    .position(|c| c.name == *name)
                    .map(Index::Codata),
                "-codata" => codata
                    .iter()
                    .position(|c| c.name == *name)
                    .map(Index::Negated),
                _ => iau.iter().position(|n| n.name == *name).map(Index::Iau),
            };
            if let Some(index) = index {
                aliases.insert(fold(alias), index);
            }
        }
        Tables {
            codata,
            iau,
            aliases,
            distances,
        }
    })
}

/// The tab-separated fields of a table's lines, comments and blank lines skipped.
fn rows(text: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
}

/// One line of NIST's fixed-width table: the name in columns 0-60, the value 60-85, the uncertainty 85-110 and
/// the unit after (the layout SciPy's `parse_constants_2018toXXXX` reads).
fn codata_line(line: &'static str) -> Option<Constant> {
    let name = line.get(..60)?.trim_end();
    let value = line.get(60..85)?;
    let uncertainty = line.get(85..110)?.trim();
    let unit = line.get(110..).unwrap_or("").trim();
    let text: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    // Values that do not end are written with "..." (1.054 571 817... e-34): exact, shown as far as published.
    let number: String = text.replace("...", "");
    Some(Constant {
        name,
        value: number.parse().ok()?,
        text: number,
        exact: uncertainty == "(exact)",
        truncated: false,
        uncertainty: uncertainty.chars().filter(|c| !c.is_whitespace()).collect(),
        unit,
    })
}

/// A name as the alias table compares it: lower case, apostrophes, "the" and "a"/"an" dropped, punctuation a space.
pub fn fold(text: &str) -> String {
    let lower = text.to_lowercase().replace(['\'', '’'], "");
    let spaced: String = lower
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' {
                c
            } else {
                ' '
            }
        })
        .collect();
    spaced
        .split_whitespace()
        .filter(|w| !matches!(*w, "the" | "a" | "an"))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The fact these words name, if the tables have one.
pub fn lookup(words: &str) -> Option<Fact> {
    let t = tables();
    let key = fold(words);
    let key = key.strip_prefix("value of ").unwrap_or(&key);
    Some(match *t.aliases.get(key)? {
        Index::Codata(i) => Fact::Codata(&t.codata[i]),
        Index::Negated(i) => Fact::Negated(&t.codata[i]),
        Index::Iau(i) => Fact::Iau(&t.iau[i]),
    })
}

/// The body these words name ("the Moon", "Mars").
pub fn body(words: &str) -> Option<&'static str> {
    let key = fold(words);
    BODIES.iter().copied().find(|b| *b == key)
}

/// The distance between two bodies.
pub fn distance(a: &str, b: &str) -> Option<Distance> {
    tables().distances.get(&(a, b)).copied()
}

#[cfg(test)]
fn t_count_truncated() -> usize {
    tables().codata.iter().filter(|c| c.truncated).count()
}

/// How many CODATA constants there are (for tests and docs).
pub fn codata_count() -> usize {
    tables().codata.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_line_is_read() {
        let t = tables();
        let lines = include_str!("../data/codata-2022.txt").lines().count();
        assert_eq!(t.codata.len(), lines);
        assert_eq!(
            t.iau.len(),
            rows(include_str!("../data/astronomy.tsv")).count()
        );
        // 11 bodies, every pair both ways.
        assert_eq!(t.distances.len(), 11 * 10);
        for f in rows(include_str!("../data/aliases.tsv")) {
            assert!(lookup(f[0]).is_some(), "alias {:?} names nothing", f[0]);
        }
    }

    #[test]
    fn values_and_exactness_are_read_as_published() {
        let Some(Fact::Codata(c)) = lookup("speed of light") else {
            panic!("c")
        };
        assert_eq!((c.value, c.exact, c.unit), (299_792_458.0, true, "m s^-1"));
        let Some(Fact::Codata(g)) = lookup("Newton's gravitational constant") else {
            panic!("G")
        };
        assert_eq!(
            (g.text.as_str(), g.uncertainty.as_str()),
            ("6.67430e-11", "0.00015e-11")
        );
        let Some(Fact::Codata(hbar)) = lookup("reduced Planck constant") else {
            panic!("hbar")
        };
        assert!(
            hbar.exact && hbar.truncated && hbar.text == "1.054571817e-34",
            "{hbar:?}"
        );
        assert_eq!(hbar.value, 1.0545718176461565e-34);
        assert_eq!(t_count_truncated(), 62);
    }
}
