//! The LaTeX reader: math as answers and papers write it (`\frac{x^2-1}{x-1}`, `2\sqrt{2}`, `\sin^2 x`,
//! `\binom{5}{2}`, `0.\overline{3}`, `x_{12}`) translated to expression text that [`parse`](crate::parse) or
//! SymPy reads, implicit products made explicit. `grade` reads answers with it and `symbolic_math` reads LaTeX
//! input with it, so both read LaTeX the same way.
//!
//! Nothing here evaluates anything: the output is text for a parser. Recursion is bounded by [`MAX_NESTING`].

use thiserror::Error;

/// Deepest nesting of groups the translator follows; math is shallow, and this keeps its recursion small.
pub const MAX_NESTING: usize = 64;

/// Why a piece of LaTeX could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct LatexError(pub String);

/// Whose syntax [`to_expression`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Beaker's expression language: Greek letters are `g_theta` (its `gamma` and `beta` are functions), the
    /// binomial coefficient is `comb`, a cube root is the real `cbrt`.
    Expr,
    /// SymPy's `parse_expr` with `^` as power: `theta` (`lamda` for λ), `binomial`, `ceiling`, `Max`, `oo`,
    /// `real_root(x, 3)`.
    SymPy,
}

/// `s` without the math delimiters around it (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`), trimmed.
pub fn strip_delimiters(s: &str) -> &str {
    let mut t = s.trim();
    for (open, close) in [("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")] {
        if let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            t = inner.trim();
        }
    }
    t
}

/// Whether `name` (without its backslash) is a Greek letter read as a variable.
pub fn is_greek(name: &str) -> bool {
    GREEK.contains(&name)
}

/// The byte index of the `}` that closes the `{` at `open` (a `\{` or `\}` does not count).
pub fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// LaTeX markup that carries no value, removed before reading.
const NOISE: &[&str] = &[
    "\\displaystyle",
    "\\left.",
    "\\right.",
    "\\left",
    "\\right",
    "\\bigl",
    "\\bigr",
    "\\Bigl",
    "\\Bigr",
    "\\big",
    "\\Big",
    "\\,",
    "\\;",
    "\\:",
    "\\!",
    "\\ ",
    "\\quad",
    "\\qquad",
    "~",
];

/// Text commands whose argument is read as plain text.
const TEXT_COMMANDS: &[&str] = &[
    "\\text",
    "\\textbf",
    "\\textit",
    "\\textrm",
    "\\mathrm",
    "\\mathbf",
    "\\mathit",
    "\\mbox",
    "\\operatorname",
];

/// LaTeX normalized before reading: `\dfrac` is `\frac`, layout commands (`\left`, `\,`, `\displaystyle`)
/// go, text commands give their argument, a degree sign is `°`; each rewrite is done only when its pattern is
/// there.
pub fn normalize(mut t: String) -> String {
    let swap = |t: &mut String, from: &str, to: &str| {
        if t.contains(from) {
            *t = t.replace(from, to);
        }
    };
    for (from, to) in [
        ("{,}", ""),
        ("\\$", "$"),
        ("\\dfrac", "\\frac"),
        ("\\tfrac", "\\frac"),
        ("\\cfrac", "\\frac"),
        ("\\dbinom", "\\binom"),
        ("\\tbinom", "\\binom"),
    ] {
        swap(&mut t, from, to);
    }
    for n in NOISE {
        let to = if *n == "~" || n.starts_with("\\q") {
            " "
        } else {
            ""
        };
        swap(&mut t, n, to);
    }
    if t.contains('\\') {
        t = unwrap_text_commands(&t);
    }
    for (from, to) in [
        ("^\\circ", "°"),
        ("^{\\circ}", "°"),
        ("\\degree", "°"),
        ("\\circ", "°"),
    ] {
        swap(&mut t, from, to);
    }
    t
}

/// `\text{ m/s}` → ` m/s`: text commands replaced by their argument.
fn unwrap_text_commands(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    'outer: while !rest.is_empty() {
        for cmd in TEXT_COMMANDS {
            if let Some(after) = rest.strip_prefix(cmd) {
                let skip = after.len() - after.trim_start().len();
                if after.trim_start().starts_with('{') {
                    let open = cmd.len() + skip;
                    if let Some(close) = matching_brace(rest, open) {
                        out.push(' ');
                        out.push_str(&rest[open + 1..close]);
                        out.push(' ');
                        rest = &rest[close + 1..];
                        continue 'outer;
                    }
                }
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The command of each letter of `αβγδεζηθικλμνξρστυφχψω`, in that order.
const GREEK_BY_CHAR: [&str; 22] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
];

/// Greek letters read as variable names.
const GREEK: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "varepsilon",
    "zeta",
    "eta",
    "theta",
    "vartheta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "rho",
    "sigma",
    "phi",
    "varphi",
    "chi",
    "psi",
    "omega",
    "Gamma",
    "Delta",
    "Theta",
    "Lambda",
    "Xi",
    "Sigma",
    "Phi",
    "Psi",
    "Omega",
];

/// Whether `name` is a function the reader knows by name (`sin`, `arctan`, `gcd`, …).
pub fn is_function(name: &str) -> bool {
    FUNCTIONS.iter().any(|(n, _)| *n == name)
}

/// Functions known by name in plain text and as LaTeX commands, and the expression language's name for each.
const FUNCTIONS: &[(&str, &str)] = &[
    ("arcsin", "asin"),
    ("arccos", "acos"),
    ("arctan", "atan"),
    ("asin", "asin"),
    ("acos", "acos"),
    ("atan", "atan"),
    ("sinh", "sinh"),
    ("cosh", "cosh"),
    ("tanh", "tanh"),
    ("sqrt", "sqrt"),
    ("cbrt", "cbrt"),
    ("sin", "sin"),
    ("cos", "cos"),
    ("tan", "tan"),
    ("sec", "sec"),
    ("csc", "csc"),
    ("cot", "cot"),
    ("exp", "exp"),
    ("log", "log"),
    ("ln", "ln"),
    ("abs", "abs"),
    ("floor", "floor"),
    ("ceil", "ceil"),
    ("max", "max"),
    ("min", "min"),
    ("gcd", "gcd"),
    ("lcm", "lcm"),
];

/// One piece of the translated expression.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Num(String),
    Name(String),
    /// A function name; an opening bracket always follows.
    Func(String),
    Op(&'static str),
    Open,
    Close,
    Comma,
    Bang,
}

impl Piece {
    fn ends_operand(&self) -> bool {
        matches!(
            self,
            Piece::Num(_) | Piece::Name(_) | Piece::Close | Piece::Bang
        )
    }
    fn starts_operand(&self) -> bool {
        matches!(
            self,
            Piece::Num(_) | Piece::Name(_) | Piece::Func(_) | Piece::Open
        )
    }
}

/// Translates one scalar (LaTeX or plain text, [`normalize`]d) to `target`'s syntax.
pub fn to_expression(s: &str, target: Target) -> Result<String, LatexError> {
    translate(s, target).map_err(LatexError)
}

fn translate(s: &str, target: Target) -> Result<String, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut t = Translator {
        c: &chars,
        i: 0,
        in_function: 0,
        target,
    };
    let pieces = mixed_numbers(t.sequence(0, None)?)?;
    if t.i < chars.len() {
        return Err(format!("unexpected `{}`", chars[t.i]));
    }
    let mut out = String::with_capacity(s.len() * 2);
    let mut prev: Option<&Piece> = None;
    for p in &pieces {
        if prev.is_some_and(Piece::ends_operand) && p.starts_operand() {
            out.push('*');
        }
        match p {
            Piece::Func(n) => out.push_str(&t.function_name(n)),
            Piece::Num(n) | Piece::Name(n) => out.push_str(n),
            Piece::Op(o) => out.push_str(o),
            Piece::Open => out.push('('),
            Piece::Close => out.push(')'),
            Piece::Comma => out.push(','),
            Piece::Bang => out.push('!'),
        }
        prev = Some(p);
    }
    Ok(out)
}

struct Translator<'a> {
    c: &'a [char],
    i: usize,
    /// Inside a function's argument: `30°` there is π/6 (`\sin 30^\circ`); elsewhere it is the number 30.
    in_function: usize,
    target: Target,
}

impl Translator<'_> {
    /// A Greek letter's variable name: `g_theta` in the expression language (where `gamma` and `beta` are
    /// functions), `theta` for SymPy (`lamda` there, as `lambda` is a Python keyword).
    fn greek(&self, name: &str) -> String {
        match self.target {
            Target::Expr => format!("g_{name}"),
            Target::SymPy if name == "lambda" => "lamda".into(),
            Target::SymPy => name.into(),
        }
    }

    /// A function's name in the target's syntax (they differ for a few).
    fn function_name(&self, name: &str) -> String {
        match (self.target, name) {
            (Target::SymPy, "comb") => "binomial".into(),
            (Target::SymPy, "ceil") => "ceiling".into(),
            (Target::SymPy, "max") => "Max".into(),
            (Target::SymPy, "min") => "Min".into(),
            _ => name.into(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.c.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }

    /// The command name after a backslash at `i` (letters, or one other character).
    fn command(&mut self) -> String {
        self.i += 1;
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        if self.i == start && self.i < self.c.len() {
            self.i += 1;
        }
        self.c[start..self.i].iter().collect()
    }

    /// Whether the characters from `at` spell `pat`.
    fn rest_starts_with(&self, at: usize, pat: &str) -> bool {
        let rest = self.c.get(at..).unwrap_or(&[]);
        pat.chars().count() <= rest.len() && rest.iter().zip(pat.chars()).all(|(a, b)| *a == b)
    }

    /// `\frac{1}{2}` or `\frac12` of two plain integers right after an integer (spaces between allowed): the
    /// numerator, the denominator and where the fraction ends.
    fn mixed_fraction(&self) -> Option<(String, String, usize)> {
        let mut j = self.i;
        while self.c.get(j).is_some_and(|c| c.is_whitespace()) {
            j += 1;
        }
        if !self.rest_starts_with(j, "\\frac") {
            return None;
        }
        j += 5;
        let mut parts = Vec::new();
        for _ in 0..2 {
            match self.c.get(j) {
                Some('{') => {
                    let close = (j + 1..self.c.len()).find(|&k| self.c[k] == '}')?;
                    let inner: String = self.c[j + 1..close].iter().collect();
                    let inner = inner.trim().to_string();
                    if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_digit()) {
                        return None;
                    }
                    parts.push(inner);
                    j = close + 1;
                }
                Some(c) if c.is_ascii_digit() => {
                    parts.push(c.to_string());
                    j += 1;
                }
                _ => return None,
            }
        }
        let b = parts.pop()?;
        let a = parts.pop()?;
        Some((a, b, j))
    }

    /// Whether a plain function name (`sin`, `cos`, …) starts here.
    fn at_function_name(&self) -> bool {
        let rest = &self.c[self.i..];
        FUNCTIONS
            .iter()
            .any(|(n, _)| n.len() <= rest.len() && rest.iter().zip(n.chars()).all(|(a, b)| *a == b))
    }

    /// Operands and operators until `close` (or the end).
    fn sequence(&mut self, depth: usize, close: Option<char>) -> Result<Vec<Piece>, String> {
        if depth > MAX_NESTING {
            return Err(format!("nested more than {MAX_NESTING} deep"));
        }
        let mut out = Vec::new();
        let mut abs_open = 0usize;
        loop {
            self.skip_ws();
            let Some(c) = self.peek() else { break };
            if Some(c) == close || (close.is_some() && matches!(c, ')' | ']' | '}')) {
                break;
            }
            match c {
                '+' | '-' | '−' => {
                    self.i += 1;
                    out.push(Piece::Op(if c == '+' { "+" } else { "-" }));
                }
                '*' | '×' | '·' | '⋅' => {
                    self.i += 1;
                    out.push(Piece::Op("*"));
                }
                '/' | '÷' => {
                    self.i += 1;
                    out.push(Piece::Op("/"));
                }
                ',' => {
                    self.i += 1;
                    out.push(Piece::Comma);
                }
                '|' => {
                    self.i += 1;
                    self.bar(&mut out, &mut abs_open, depth)?;
                }
                '\\' if matches!(self.c.get(self.i + 1), Some('|')) => {
                    return Err("`\\|` (a norm) is not read".into());
                }
                '\\' => {
                    let save = self.i;
                    let name = self.command();
                    match name.as_str() {
                        "cdot" | "times" | "ast" => out.push(Piece::Op("*")),
                        "div" => out.push(Piece::Op("/")),
                        "bmod" | "mod" => out.push(Piece::Op("%")),
                        "rfloor" | "rceil" => {
                            // The end of a `\lfloor` group, which its opening reads to.
                            self.i = save;
                            break;
                        }
                        "lvert" | "rvert" | "vert" | "mid" => {
                            self.bar(&mut out, &mut abs_open, depth)?
                        }
                        _ => {
                            self.i = save;
                            self.atom(&mut out, depth)?;
                        }
                    }
                }
                _ => self.atom(&mut out, depth)?,
            }
        }
        if abs_open > 0 {
            return Err("unbalanced `|`".into());
        }
        Ok(out)
    }

    /// A `|` (or `\\vert`): it opens an absolute value where an operand is expected, else closes the open one
    /// (with its postfix `^`, `!`: `|x|^2`).
    fn bar(&mut self, out: &mut Vec<Piece>, open: &mut usize, depth: usize) -> Result<(), String> {
        if out.last().is_none_or(|p: &Piece| !p.ends_operand()) {
            *open += 1;
            out.push(Piece::Func("abs".into()));
            out.push(Piece::Open);
        } else if *open > 0 {
            *open -= 1;
            out.push(Piece::Close);
            self.postfix(out, depth)?;
        } else {
            return Err("unbalanced `|`".into());
        }
        Ok(())
    }

    /// A brace group `{…}`, or else one character or number, as the argument of `\frac12`, `^2`, `_1`.
    fn argument(&mut self, depth: usize) -> Result<Vec<Piece>, String> {
        self.skip_ws();
        match self.peek() {
            Some('{') => {
                self.i += 1;
                let inner = self.sequence(depth + 1, Some('}'))?;
                if self.peek() != Some('}') {
                    return Err("a `{` is not closed".into());
                }
                self.i += 1;
                Ok(wrap(inner))
            }
            Some(c) if c.is_ascii_digit() => {
                self.i += 1;
                Ok(vec![Piece::Num(c.to_string())])
            }
            Some(_) => {
                let mut out = Vec::new();
                self.atom_only(&mut out, depth)?;
                Ok(out)
            }
            None => Err("an argument is missing at the end".into()),
        }
    }

    /// One operand with its postfix `^`, `!` and subscripts.
    fn atom(&mut self, out: &mut Vec<Piece>, depth: usize) -> Result<(), String> {
        self.atom_only(out, depth)?;
        self.postfix(out, depth)
    }

    fn postfix(&mut self, out: &mut Vec<Piece>, depth: usize) -> Result<(), String> {
        loop {
            self.skip_ws();
            match self.peek() {
                Some('^') => {
                    self.i += 1;
                    self.skip_ws();
                    let exp = if self.peek() == Some('{') {
                        self.argument(depth + 1)?
                    } else {
                        // Plain text `x^23` and `x^-1`: a signed run of digits; otherwise one atom.
                        let mut e = Vec::new();
                        if matches!(self.peek(), Some('-' | '+')) {
                            e.push(Piece::Op(if self.peek() == Some('-') { "-" } else { "+" }));
                            self.i += 1;
                        }
                        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                            e.push(Piece::Num(self.number()));
                        } else {
                            self.atom_only(&mut e, depth + 1)?;
                        }
                        wrap(e)
                    };
                    out.push(Piece::Op("^"));
                    out.extend(exp);
                }
                Some('*') if self.c.get(self.i + 1) == Some(&'*') => {
                    self.i += 2;
                    out.push(Piece::Op("^"));
                    let mut e = Vec::new();
                    if matches!(self.peek(), Some('-' | '+')) {
                        e.push(Piece::Op(if self.peek() == Some('-') { "-" } else { "+" }));
                        self.i += 1;
                    }
                    self.atom_only(&mut e, depth + 1)?;
                    out.extend(wrap(e));
                }
                Some('!') => {
                    self.i += 1;
                    out.push(Piece::Bang);
                }
                Some('\'') => return Err("a prime (`'`) is not read".into()),
                _ => return Ok(()),
            }
        }
    }

    fn number(&mut self) -> String {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        if self.peek() == Some('.') && self.c.get(self.i + 1).is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
        } else if self.peek() == Some('.')
            && (self.rest_starts_with(self.i + 1, "\\overline")
                || self.rest_starts_with(self.i + 1, "\\dot"))
        {
            // `0.\overline{3}`: the point belongs to the repeating decimal.
            self.i += 1;
            return self.c[start..self.i].iter().collect();
        }
        // `1.5e3`, `2e-7`: an exponent only when digits follow (`2e` is 2·e).
        if matches!(self.peek(), Some('e' | 'E')) {
            let mut j = self.i + 1;
            if matches!(self.c.get(j), Some('+' | '-')) {
                j += 1;
            }
            if self.c.get(j).is_some_and(|c| c.is_ascii_digit()) {
                self.i = j;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
            }
        }
        self.c[start..self.i].iter().collect()
    }

    fn atom_only(&mut self, out: &mut Vec<Piece>, depth: usize) -> Result<(), String> {
        if depth > MAX_NESTING {
            return Err(format!("nested more than {MAX_NESTING} deep"));
        }
        self.skip_ws();
        let Some(c) = self.peek() else {
            return Err("an operand is missing at the end".into());
        };
        match c {
            c if c.is_ascii_digit()
                || (c == '.' && self.c.get(self.i + 1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                let n = self.number();
                let integer = !n.contains(['.', 'e', 'E']);
                if integer && self.peek() == Some('_') {
                    // `1010_2`, `A3_{16}` is not read (a letter starts it): a numeral in a base.
                    self.i += 1;
                    let base = self.argument(depth + 1)?;
                    let value = match base.as_slice() {
                        [Piece::Num(b)] => b
                            .parse::<u32>()
                            .ok()
                            .filter(|b| (2..=36).contains(b))
                            .and_then(|b| rug::Integer::from_str_radix(&n, b as i32).ok()),
                        _ => None,
                    };
                    let Some(v) = value else {
                        return Err(format!("`{n}_…` is not a numeral in a base from 2 to 36"));
                    };
                    out.push(Piece::Num(v.to_string()));
                } else if let Some((a, b, end)) = self.mixed_fraction().filter(|_| integer) {
                    // `2\frac{1}{2}` is two and a half, as answers write mixed numbers.
                    self.i = end;
                    out.extend([
                        Piece::Open,
                        Piece::Num(n),
                        Piece::Op("+"),
                        Piece::Open,
                        Piece::Num(a),
                        Piece::Op("/"),
                        Piece::Num(b),
                        Piece::Close,
                        Piece::Close,
                    ]);
                } else {
                    out.push(Piece::Num(n));
                }
            }
            '(' | '[' | '{' => {
                self.i += 1;
                let close = match c {
                    '(' => ')',
                    '[' => ']',
                    _ => '}',
                };
                let inner = self.sequence(depth + 1, Some(close))?;
                match self.peek() {
                    Some(')' | ']' | '}') => self.i += 1,
                    _ => return Err(format!("a `{c}` is not closed")),
                }
                if inner.is_empty() {
                    return Err("empty brackets".into());
                }
                out.extend(wrap(inner));
            }
            'π' => {
                self.i += 1;
                out.push(Piece::Name("pi".into()));
            }
            '√' => {
                self.i += 1;
                let arg = self.argument(depth + 1)?;
                call(out, "sqrt", arg);
            }
            '°' => {
                // Degrees are the plain number written (`30°` is 30), but radians inside a function
                // (`\sin 30°` is sin(π/6)).
                self.i += 1;
                if out.is_empty() {
                    return Err("a `°` without a number".into());
                }
                if self.in_function > 0 {
                    out.extend([
                        Piece::Op("*"),
                        Piece::Open,
                        Piece::Name("pi".into()),
                        Piece::Op("/"),
                        Piece::Num("180".into()),
                        Piece::Close,
                    ]);
                }
            }
            c if c.is_alphabetic() => self.word(out, depth)?,
            '\\' => self.latex(out, depth)?,
            other => return Err(format!("unexpected `{other}`")),
        }
        Ok(())
    }

    /// A run of letters: known function and constant names whole, other letters one variable each (`ab` is
    /// a·b, as in LaTeX), with subscripts (`x_1`).
    fn word(&mut self, out: &mut Vec<Piece>, depth: usize) -> Result<(), String> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        if self.i == start {
            // A non-ASCII letter: one variable, a Greek one named as its command (`θ` is `\theta`).
            let c = self.c[self.i];
            self.i += 1;
            const GREEK_CHARS: &str = "αβγδεζηθικλμνξρστυφχψω";
            let name = match GREEK_CHARS.chars().position(|g| g == c) {
                Some(k) => self.greek(GREEK_BY_CHAR[k]),
                None if self.target == Target::SymPy => c.to_string(),
                None => format!("v{}", u32::from(c)),
            };
            out.push(Piece::Name(name));
            return Ok(());
        }
        let word: String = self.c[start..self.i].iter().collect();
        let mut rest = word.as_str();
        while !rest.is_empty() {
            if let Some((name, beaker)) = FUNCTIONS.iter().find(|(n, _)| rest.starts_with(n)) {
                rest = &rest[name.len()..];
                if rest.is_empty() {
                    return self.function(out, beaker, depth);
                }
                // A function name inside a longer word applies to what follows in that word.
                out.push(Piece::Func((*beaker).to_string()));
                out.push(Piece::Open);
                continue_letters(out, rest);
                out.push(Piece::Close);
                return Ok(());
            }
            if let Some(r) = rest.strip_prefix("pi") {
                out.push(Piece::Name("pi".into()));
                rest = r;
                continue;
            }
            let c = &rest[..1];
            rest = &rest[1..];
            out.push(Piece::Name(c.to_string()));
        }
        self.subscript(out, depth)
    }

    /// `x_1`, `x_{12}`: the last name gets the subscript.
    fn subscript(&mut self, out: &mut [Piece], depth: usize) -> Result<(), String> {
        if self.peek() != Some('_') {
            return Ok(());
        }
        self.i += 1;
        let arg = self.argument(depth + 1)?;
        let mut sub = String::new();
        for p in arg {
            match p {
                Piece::Num(n) | Piece::Name(n) => sub.push_str(&n.replace('.', "_")),
                Piece::Open | Piece::Close => {}
                _ => return Err("a subscript that is not a name or number".into()),
            }
        }
        match out.last_mut() {
            Some(Piece::Name(n)) => {
                n.push('_');
                n.push_str(&sub);
                Ok(())
            }
            _ => Err("a subscript on something that is not a name".into()),
        }
    }

    /// A function applied: `sin(x)`, `\sin x`, `\sin^2 x` (= sin(x)²), `\sin^{-1} x` (= asin x), `\log_2 8`.
    fn function(&mut self, out: &mut Vec<Piece>, name: &str, depth: usize) -> Result<(), String> {
        let mut name = name.to_string();
        let mut power: Option<Vec<Piece>> = None;
        let mut base: Option<Vec<Piece>> = None;
        loop {
            self.skip_ws();
            match self.peek() {
                Some('^') => {
                    self.i += 1;
                    let p = self.argument(depth + 1)?;
                    if p == wrap(vec![Piece::Op("-"), Piece::Num("1".into())])
                        && ["sin", "cos", "tan"].contains(&name.as_str())
                    {
                        name = format!("a{name}");
                    } else {
                        power = Some(p);
                    }
                }
                Some('_') if name == "log" => {
                    self.i += 1;
                    base = Some(self.argument(depth + 1)?);
                }
                _ => break,
            }
        }
        self.skip_ws();
        self.in_function += 1;
        let arg = self.function_argument(&name, depth);
        self.in_function -= 1;
        let arg = arg?;
        let (name, extra) = match name.as_str() {
            "sec" => ("1/cos".to_string(), None),
            "csc" => ("1/sin".to_string(), None),
            "cot" => ("1/tan".to_string(), None),
            _ => (name, base),
        };
        out.push(Piece::Open);
        if let Some(rest) = name.strip_prefix("1/") {
            out.push(Piece::Num("1".into()));
            out.push(Piece::Op("/"));
            out.push(Piece::Func(rest.into()));
        } else {
            out.push(Piece::Func(name));
        }
        out.push(Piece::Open);
        out.extend(arg);
        if let Some(b) = extra {
            out.push(Piece::Comma);
            out.extend(b);
        }
        out.push(Piece::Close);
        out.push(Piece::Close);
        if let Some(p) = power {
            out.push(Piece::Op("^"));
            out.extend(p);
        }
        Ok(())
    }

    /// A function's argument: a bracket (`sin(x)`), or the operands that follow without an operator.
    fn function_argument(&mut self, name: &str, depth: usize) -> Result<Vec<Piece>, String> {
        if self.peek() == Some('(') {
            // `\gcd(12, 18)`: the brackets are the call's own, so its commas separate arguments.
            self.i += 1;
            let inner = self.sequence(depth + 1, Some(')'))?;
            if self.peek() != Some(')') {
                return Err(format!("`{name}(` is not closed"));
            }
            self.i += 1;
            if inner.is_empty() {
                return Err(format!("`{name}()` has no argument"));
            }
            return Ok(inner);
        }
        // A bare argument: the operands that follow without an operator (`\sin 2x` is sin(2x)).
        let mut a = Vec::new();
        loop {
            self.skip_ws();
            // `\sin x \cos x`, `sin x cos x`: the next function starts a new factor.
            if !a.is_empty() && self.at_function_name() {
                break;
            }
            match self.peek() {
                Some(c)
                    if c.is_ascii_digit() || c.is_alphabetic() || matches!(c, '{' | 'π' | '°') =>
                {
                    self.atom(&mut a, depth + 1)?
                }
                Some('\\') => {
                    let save = self.i;
                    let cmd = self.command();
                    self.i = save;
                    if ["cdot", "times", "div", "ast"].contains(&cmd.as_str()) || is_function(&cmd)
                    {
                        break;
                    }
                    self.atom(&mut a, depth + 1)?;
                }
                _ => break,
            }
        }
        if a.is_empty() {
            return Err(format!("`{name}` without an argument"));
        }
        Ok(wrap(a))
    }

    fn latex(&mut self, out: &mut Vec<Piece>, depth: usize) -> Result<(), String> {
        let name = self.command();
        match name.as_str() {
            "frac" => {
                let a = self.argument(depth + 1)?;
                let b = self.argument(depth + 1)?;
                let mut f = wrap(a);
                f.push(Piece::Op("/"));
                f.extend(wrap(b));
                out.extend(wrap(f));
            }
            "sqrt" => {
                self.skip_ws();
                let index = if self.peek() == Some('[') {
                    self.i += 1;
                    let n = self.sequence(depth + 1, Some(']'))?;
                    if self.peek() != Some(']') {
                        return Err("a `\\sqrt[` is not closed".into());
                    }
                    self.i += 1;
                    Some(n)
                } else {
                    None
                };
                let arg = self.argument(depth + 1)?;
                match index {
                    None => call(out, "sqrt", arg),
                    // The real cube root: `\sqrt[3]{-8}` is -2 (SymPy's `cbrt` is the principal root).
                    Some(n) if n == [Piece::Num("3".into())] && self.target == Target::SymPy => {
                        let mut a = arg;
                        a.extend([Piece::Comma, Piece::Num("3".into())]);
                        call(out, "real_root", a)
                    }
                    Some(n) if n == [Piece::Num("3".into())] => call(out, "cbrt", arg),
                    Some(n) => {
                        let mut p = wrap(arg);
                        p.push(Piece::Op("^"));
                        let mut e = vec![Piece::Num("1".into()), Piece::Op("/")];
                        e.extend(wrap(n));
                        p.extend(wrap(e));
                        out.extend(wrap(p));
                    }
                }
            }
            "binom" => {
                let n = self.argument(depth + 1)?;
                let k = self.argument(depth + 1)?;
                out.push(Piece::Func("comb".into()));
                out.push(Piece::Open);
                out.extend(n);
                out.push(Piece::Comma);
                out.extend(k);
                out.push(Piece::Close);
            }
            "pi" => out.push(Piece::Name("pi".into())),
            "lfloor" | "lceil" => {
                out.push(Piece::Func(
                    if name == "lfloor" { "floor" } else { "ceil" }.into(),
                ));
                out.push(Piece::Open);
                let inner = self.sequence(depth + 1, None)?;
                if !(self.rest_starts_with(self.i, "\\rfloor")
                    || self.rest_starts_with(self.i, "\\rceil"))
                {
                    return Err(format!("a `\\{name}` is not closed"));
                }
                self.command();
                out.extend(inner);
                out.push(Piece::Close);
            }
            "overline" | "dot" => {
                // `0.\overline{3}`, `0.1\overline{6}`: a repeating decimal, exactly.
                let Some(Piece::Num(text)) = out.pop() else {
                    return Err("`\\overline` not after a decimal".into());
                };
                let digits = self.argument(depth + 1)?;
                let repeat: String = digits
                    .iter()
                    .map(|p| match p {
                        Piece::Num(d) if d.bytes().all(|b| b.is_ascii_digit()) => Ok(d.as_str()),
                        _ => Err("`\\overline` of something other than digits".to_string()),
                    })
                    .collect::<Result<String, String>>()?;
                let (int, frac) = text
                    .split_once('.')
                    .ok_or("`\\overline` not after a decimal point")?;
                if repeat.is_empty() || repeat.len() + frac.len() + int.len() > 200 {
                    return Err("`\\overline` of no digits, or too many".into());
                }
                let whole = |s: &str| s.parse::<rug::Integer>().unwrap_or_default();
                let numer = whole(&format!("{int}{frac}{repeat}")) - whole(&format!("{int}{frac}"));
                let ten = rug::Integer::from(10);
                let denom = rug::ops::Pow::pow(ten.clone(), frac.len() as u32)
                    * (rug::ops::Pow::pow(ten, repeat.len() as u32) - 1u32);
                out.extend([
                    Piece::Open,
                    Piece::Num(numer.to_string()),
                    Piece::Op("/"),
                    Piece::Num(denom.to_string()),
                    Piece::Close,
                ]);
            }
            "e" => out.push(Piece::Name("e".into())),
            "infty" if self.target == Target::SymPy => out.push(Piece::Name("oo".into())),
            "infty" => return Err("infinity is not a number".into()),
            "{" | "}" => return Err("a set inside an expression".into()),
            "%" => return Err("a percent sign inside an expression".into()),
            n if GREEK.contains(&n) => {
                out.push(Piece::Name(self.greek(n)));
                self.subscript(out, depth)?;
            }
            n => {
                if let Some((_, beaker)) = FUNCTIONS.iter().find(|(f, _)| *f == n) {
                    return self.function(out, beaker, depth);
                }
                return Err(format!("the LaTeX command `\\{n}` is not read"));
            }
        }
        Ok(())
    }
}

/// `2 1/2` is two and a half; any other two numbers side by side (`3 4`) are not an answer that reads.
fn mixed_numbers(pieces: Vec<Piece>) -> Result<Vec<Piece>, String> {
    let integer = |p: &Piece| matches!(p, Piece::Num(n) if n.bytes().all(|b| b.is_ascii_digit()));
    let mut out = Vec::with_capacity(pieces.len());
    let mut i = 0;
    while i < pieces.len() {
        let next_is_num = matches!(pieces.get(i + 1), Some(Piece::Num(_)));
        if matches!(pieces[i], Piece::Num(_)) && next_is_num {
            let mixed = integer(&pieces[i])
                && integer(&pieces[i + 1])
                && pieces.get(i + 2) == Some(&Piece::Op("/"))
                && pieces.get(i + 3).is_some_and(integer)
                && !matches!(
                    pieces.get(i + 4),
                    Some(Piece::Op("^")) | Some(Piece::Num(_))
                );
            if !mixed {
                return Err("two numbers side by side".into());
            }
            out.push(Piece::Open);
            out.push(pieces[i].clone());
            out.push(Piece::Op("+"));
            out.push(Piece::Open);
            out.extend(pieces[i + 1..i + 4].iter().cloned());
            out.push(Piece::Close);
            out.push(Piece::Close);
            i += 4;
            continue;
        }
        out.push(pieces[i].clone());
        i += 1;
    }
    Ok(out)
}

/// Letters that follow a function name inside one word (`sinx`): one variable each.
fn continue_letters(out: &mut Vec<Piece>, rest: &str) {
    for c in rest.chars() {
        out.push(Piece::Name(c.to_string()));
    }
}

/// `name(arg)`: a call's brackets are always written, even around one piece.
fn call(out: &mut Vec<Piece>, name: &str, arg: Vec<Piece>) {
    out.push(Piece::Func(name.into()));
    out.push(Piece::Open);
    out.extend(arg);
    out.push(Piece::Close);
}

/// Brackets around pieces, so that `\frac{a+b}{c}` keeps its grouping.
fn wrap(inner: Vec<Piece>) -> Vec<Piece> {
    if inner.len() == 1 || enclosed(&inner) {
        return inner;
    }
    let mut out = Vec::with_capacity(inner.len() + 2);
    out.push(Piece::Open);
    out.extend(inner);
    out.push(Piece::Close);
    out
}

/// Whether the pieces are one bracketed group already (`(a+b)`, not `(a)+(b)`).
fn enclosed(pieces: &[Piece]) -> bool {
    if pieces.first() != Some(&Piece::Open) || pieces.last() != Some(&Piece::Close) {
        return false;
    }
    let mut depth = 0usize;
    for (k, p) in pieces.iter().enumerate() {
        match p {
            Piece::Open => depth += 1,
            Piece::Close => {
                depth -= 1;
                if depth == 0 {
                    return k + 1 == pieces.len();
                }
            }
            _ => {}
        }
    }
    false
}
