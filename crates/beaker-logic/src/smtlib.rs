//! SMT-LIB 2 text: the commands of a user's script (checked against an allowlist before Z3 reads it) and
//! the answers Z3 prints (split into one entry per answer).

/// Longest script, in top-level commands.
pub const MAX_COMMANDS: usize = 100_000;

/// Deepest nesting of brackets in a script.
pub const MAX_SCRIPT_DEPTH: usize = 1_000;

/// Commands a script may use: declarations, assertions, checks and queries. Everything else is refused,
/// because some commands reach outside the solver (`set-option :regular-output-channel` writes a file, in
/// the host) or change process-wide state that later calls would inherit (Z3's `pp.*` options are global).
const COMMANDS: &[&str] = &[
    "set-logic",
    "set-info",
    "set-option",
    "get-info",
    "declare-const",
    "declare-fun",
    "define-fun",
    "define-fun-rec",
    "define-funs-rec",
    "declare-sort",
    "define-sort",
    "declare-datatype",
    "declare-datatypes",
    "assert",
    "check-sat",
    "check-sat-assuming",
    "get-model",
    "get-value",
    "get-assignment",
    "get-assertions",
    "push",
    "pop",
    "reset-assertions",
    "echo",
    "eval",
    "simplify",
    "exit",
];

/// Options `set-option` may set: ones that only affect this script's answers.
const OPTIONS: &[&str] = &[
    ":print-success",
    ":produce-models",
    ":produce-assignments",
    ":random-seed",
    ":smt.random_seed",
    ":global-declarations",
];

/// One top-level command of a script, by name and byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its head symbol (`assert`, `check-sat`).
    pub name: String,
    /// Its first argument when it is a keyword or symbol (the option `set-option` sets).
    pub first: Option<String>,
}

/// A script that cannot be run, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScriptError(pub String);

/// Splits `text` into its top-level s-expressions (strings, `|quoted symbols|` and `;` comments honoured)
/// and returns their byte ranges; bare atoms between them are errors.
fn top_level(text: &str, max_depth: usize) -> Result<Vec<(usize, usize)>, ScriptError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut depth = 0usize;
    let mut start = 0;
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    while i < b.len() {
        match b[i] {
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                loop {
                    if i >= b.len() {
                        return Err(ScriptError(format!(
                            "a string is never closed (line {})",
                            line_of(b.len())
                        )));
                    }
                    if b[i] == b'"' {
                        if b.get(i + 1) == Some(&b'"') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
            }
            b'|' => {
                i += 1;
                while i < b.len() && b[i] != b'|' {
                    i += 1;
                }
                if i >= b.len() {
                    return Err(ScriptError("a |quoted symbol| is never closed".into()));
                }
            }
            b'(' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
                if depth > max_depth {
                    return Err(ScriptError(format!(
                        "brackets nested more than {max_depth} deep (line {})",
                        line_of(i)
                    )));
                }
            }
            b')' => {
                if depth == 0 {
                    return Err(ScriptError(format!("unmatched `)` on line {}", line_of(i))));
                }
                depth -= 1;
                if depth == 0 {
                    out.push((start, i + 1));
                }
            }
            c if depth == 0 && !c.is_ascii_whitespace() => {
                let end = text[i..]
                    .find(|c: char| c.is_ascii_whitespace() || c == '(' || c == ')')
                    .map_or(text.len(), |n| i + n);
                out.push((i, end));
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if depth > 0 {
        return Err(ScriptError(format!(
            "a `(` is never closed (the command starting on line {})",
            line_of(start)
        )));
    }
    Ok(out)
}

fn head(sexpr: &str) -> (String, Option<String>) {
    let inner = sexpr
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(sexpr);
    let mut words = inner
        .split(|c: char| c.is_ascii_whitespace() || c == '(' || c == ')')
        .filter(|w| !w.is_empty());
    let name = words.next().unwrap_or("").to_string();
    let first = words.next().map(str::to_string);
    (name, first)
}

/// The commands of a script, each checked against the allowlist.
pub fn commands(script: &str) -> Result<Vec<Command>, ScriptError> {
    let mut out = Vec::new();
    for (a, b) in top_level(script, MAX_SCRIPT_DEPTH)? {
        let text = &script[a..b];
        if !text.starts_with('(') {
            return Err(ScriptError(format!(
                "`{}` is not a command (commands are bracketed: `(check-sat)`)",
                text.chars().take(40).collect::<String>()
            )));
        }
        let (name, first) = head(text);
        if !COMMANDS.contains(&name.as_str()) {
            return Err(ScriptError(format!(
                "the command `{name}` is not allowed (allowed: {})",
                COMMANDS.join(", ")
            )));
        }
        if name == "set-option" {
            let opt = first.clone().unwrap_or_default();
            if !OPTIONS.contains(&opt.as_str()) {
                return Err(ScriptError(format!(
                    "the option `{opt}` is not allowed (allowed: {}); timeouts and resource limits come from the \
                     call's limits",
                    OPTIONS.join(", ")
                )));
            }
        }
        out.push(Command { name, first });
        if out.len() > MAX_COMMANDS {
            return Err(ScriptError(format!("more than {MAX_COMMANDS} commands")));
        }
    }
    Ok(out)
}

/// Where the s-expression that `text` starts with ends (strings and `|symbols|` honoured).
fn first_sexpr_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && (b[i] != b'"' || b.get(i + 1) == Some(&b'"')) {
                    i += if b[i] == b'"' { 2 } else { 1 };
                }
            }
            b'|' => {
                i += 1;
                while i < b.len() && b[i] != b'|' {
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Z3's output split into answers: each top-level s-expression, or a bare line (`sat`, an `echo`'s text),
/// trimmed.
pub fn answers(output: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = output;
    while let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
        rest = &rest[start..];
        let end = if rest.starts_with('(') {
            // Unbalanced (an error message quoting the script): the rest of the line.
            first_sexpr_end(rest).unwrap_or_else(|| rest.find('\n').unwrap_or(rest.len()))
        } else {
            rest.find('\n').unwrap_or(rest.len())
        };
        out.push(rest[..end].trim().to_string());
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_split_and_checked() {
        let s = "; a comment (with a bracket\n(declare-const x Int)\n(assert (> x \"a)b\"))\n(check-sat) (get-value (x))";
        let names: Vec<String> = commands(s)
            .expect("ok")
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["declare-const", "assert", "check-sat", "get-value"]);
    }

    #[test]
    fn dangerous_commands_and_options_are_refused() {
        let e = commands("(set-option :regular-output-channel \"/tmp/x\")").expect_err("refused");
        assert!(e.0.contains(":regular-output-channel"), "{e}");
        assert!(commands("(set-option :pp.decimal true)").is_err());
        assert!(commands("(include \"/etc/passwd\")").is_err());
        assert!(commands("(check-sat").is_err());
        assert!(commands("check-sat").is_err());
        assert!(commands(")").is_err());
        let deep = format!("(assert {}true{})", "(and ".repeat(2000), ")".repeat(2000));
        assert!(commands(&deep).expect_err("deep").0.contains("nested"));
    }

    #[test]
    fn answers_are_split() {
        let out = "sat\n((x 3)\n (y 4))\nunsat\nhello world\n(error \"line 3 column 9: unknown constant z\")\n";
        assert_eq!(
            answers(out),
            [
                "sat",
                "((x 3)\n (y 4))",
                "unsat",
                "hello world",
                "(error \"line 3 column 9: unknown constant z\")"
            ]
        );
    }
}
