//! Text to [`Expr`]: a hand-written lexer and a shunting-yard parser (no recursion, so depth cannot
//! overflow the stack; the depth limit is policy, not a safety net).

use crate::ast::{BinOp, Const, Expr, Func, Literal, Node};
use crate::ExprError;
use rug::{Integer, Rational};

/// Bounds on the text a parser accepts.
#[derive(Debug, Clone, Copy)]
pub struct ParseLimits {
    /// Longest expression, in bytes.
    pub max_len: u64,
    /// Deepest nesting of parentheses and calls.
    pub max_depth: u64,
}

impl Default for ParseLimits {
    fn default() -> Self {
        let l = beaker_core::Limits::default();
        ParseLimits {
            max_len: l.max_expression_len,
            max_depth: l.max_depth,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(Literal),
    Ident(String),
    Op(BinOp),
    Minus,
    Plus,
    Bang,
    LParen,
    RParen,
    Comma,
}

/// Literals with at most this many digits and this exponent are made exact at parse time.
const SMALL_LITERAL: i64 = 1_000;

/// Added to errors right after a `%`, the likeliest cause of which is a percentage.
const PERCENT_HINT: &str =
    " (`%` is the remainder, as in Python, not a percent sign: write 15% of 200 as 15/100*200)";

fn syntax(src: &str, position: usize, message: impl Into<String>) -> ExprError {
    // A window of the source around the problem, so long expressions give short messages.
    let chars: Vec<char> = src.chars().collect();
    let at = position.saturating_sub(1).min(chars.len());
    let start = at.saturating_sub(30);
    let end = (at + 30).min(chars.len());
    let before: String = chars[start..at].iter().collect();
    let after: String = chars[at..end].iter().collect();
    let snippet = format!(
        "{}{before}⟨here⟩{after}{}",
        if start > 0 { "…" } else { "" },
        if end < chars.len() { "…" } else { "" }
    );
    ExprError::Syntax {
        message: message.into(),
        position,
        snippet,
    }
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let mut out = Vec::new();
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let pos = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let tok = if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (lit, next) = lex_number(src, &chars, i)?;
            i = next;
            out.push((Tok::Num(lit), pos));
            continue;
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            let name = match name.as_str() {
                "π" => "pi".to_string(),
                "τ" => "tau".to_string(),
                _ => name,
            };
            out.push((Tok::Ident(name), pos));
            continue;
        } else {
            let next = chars.get(i + 1).copied();
            let (tok, width) = match c {
                '+' => (Tok::Plus, 1),
                '-' | '−' => (Tok::Minus, 1),
                '*' if next == Some('*') => (Tok::Op(BinOp::Pow), 2),
                '*' | '×' | '·' => (Tok::Op(BinOp::Mul), 1),
                '/' if next == Some('/') => (Tok::Op(BinOp::FloorDiv), 2),
                '/' | '÷' => (Tok::Op(BinOp::Div), 1),
                '%' => (Tok::Op(BinOp::Mod), 1),
                '^' => (Tok::Op(BinOp::Pow), 1),
                '!' if next == Some('!') => {
                    return Err(syntax(
                        src,
                        pos,
                        "`!!` is ambiguous (double factorial or factorial of a factorial): write factorial(factorial(n)) or the product",
                    ))
                }
                '!' => (Tok::Bang, 1),
                '(' => (Tok::LParen, 1),
                ')' => (Tok::RParen, 1),
                ',' => (Tok::Comma, 1),
                _ => return Err(syntax(src, pos, format!("unexpected character `{c}`"))),
            };
            i += width;
            tok
        };
        out.push((tok, pos));
    }
    Ok(out)
}

fn lex_number(src: &str, chars: &[char], start: usize) -> Result<(Literal, usize), ExprError> {
    let mut i = start;
    let mut digits = String::new();
    let mut frac_digits: i64 = 0;
    let mut seen_dot = false;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            digits.push(c);
            if seen_dot {
                frac_digits += 1;
            }
        } else if c == '_'
            && i > start
            && chars[i - 1].is_ascii_digit()
            && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
        {
            // Python-style digit separator.
        } else if c == '.' && !seen_dot {
            seen_dot = true;
        } else {
            break;
        }
        i += 1;
    }
    let mut exp10: i64 = 0;
    if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
        let mut j = i + 1;
        let mut negative = false;
        if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
            negative = chars[j] == '-';
            j += 1;
        }
        let exp_start = j;
        while j < chars.len() && chars[j].is_ascii_digit() {
            j += 1;
        }
        if j == exp_start {
            return Err(syntax(
                src,
                j + 1,
                "expected digits after the exponent marker",
            ));
        }
        let text: String = chars[exp_start..j].iter().collect();
        // An exponent too long for i64 is certainly too large to evaluate; saturate and let evaluation refuse it.
        let e = text
            .parse::<i64>()
            .unwrap_or(i64::MAX / 4)
            .min(i64::MAX / 4);
        exp10 = if negative { -e } else { e };
        i = j;
    }
    if i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.') {
        return Err(syntax(
            src,
            i + 1,
            format!("unexpected `{}` after a number", chars[i]),
        ));
    }
    let text: String = chars[start..i].iter().filter(|c| **c != '_').collect();
    let mantissa: Integer = digits
        .parse()
        .map_err(|_| syntax(src, start + 1, "malformed number"))?;
    let exp10 = exp10 - frac_digits;
    let exact =
        (exp10.abs() <= SMALL_LITERAL && (digits.len() as i64) <= SMALL_LITERAL).then(|| {
            let scale = Integer::from(Integer::u_pow_u(10, exp10.unsigned_abs() as u32));
            if exp10 >= 0 {
                Rational::from(Integer::from(&mantissa * &scale))
            } else {
                Rational::from((mantissa.clone(), scale))
            }
        });
    let approx = text.parse::<f64>().unwrap_or(f64::NAN);
    Ok((
        Literal {
            text,
            mantissa,
            exp10,
            exact,
            approx,
        },
        i,
    ))
}

enum Item {
    Op(BinOp),
    Neg,
    Paren(usize),
    Call { func: Func, pos: usize, args: usize },
}

/// Parses an expression; names other than functions and constants become variables.
pub fn parse(src: &str, limits: ParseLimits) -> Result<Expr, ExprError> {
    if src.len() as u64 > limits.max_len {
        return Err(ExprError::TooLong {
            len: src.len(),
            max: limits.max_len,
        });
    }
    let toks = lex(src)?;
    if toks.is_empty() {
        return Err(syntax(src, 1, "empty expression"));
    }
    let mut p = Parser {
        src,
        nodes: Vec::with_capacity(toks.len()),
        literals: Vec::new(),
        var_names: Vec::new(),
        stack: Vec::new(),
        depth: 0,
        height: 0,
        max_height: 0,
    };
    let mut expect_operand = true;
    // Whether the last token was `%`: a missing operand after it is most likely a percentage (`15% * 200`).
    let mut after_mod = false;
    let mut iter = toks.into_iter().peekable();
    while let Some((tok, pos)) = iter.next() {
        let percent = if after_mod { PERCENT_HINT } else { "" };
        after_mod = matches!(tok, Tok::Op(BinOp::Mod));
        if expect_operand {
            match tok {
                Tok::Num(lit) => {
                    p.literals.push(lit);
                    p.emit(Node::Num((p.literals.len() - 1) as u32), pos)?;
                    expect_operand = false;
                }
                Tok::Ident(name) => {
                    if matches!(iter.peek(), Some((Tok::LParen, _))) {
                        iter.next();
                        let func = Func::from_name(&name).ok_or_else(|| {
                            syntax(src, pos, format!("unknown function `{name}`"))
                        })?;
                        p.open(Item::Call { func, pos, args: 0 }, limits)?;
                        // An immediate `)` closes a call with no arguments; it is handled below.
                        if matches!(iter.peek(), Some((Tok::RParen, _))) {
                            let (_, rpos) = iter.next().unwrap_or((Tok::RParen, pos));
                            p.close(rpos, false)?;
                            expect_operand = false;
                        }
                        continue;
                    }
                    if Func::from_name(&name).is_some() {
                        return Err(syntax(
                            src,
                            pos,
                            format!("function `{name}` needs parentheses: `{name}(…)`"),
                        ));
                    }
                    let node = match name.as_str() {
                        "pi" => Node::Const(Const::Pi),
                        "e" => Node::Const(Const::E),
                        "tau" => Node::Const(Const::Tau),
                        _ => Node::Var(p.var(name, pos)),
                    };
                    p.emit(node, pos)?;
                    expect_operand = false;
                }
                Tok::LParen => p.open(Item::Paren(pos), limits)?,
                Tok::Minus => p.stack.push(Item::Neg),
                Tok::Plus => {}
                Tok::RParen => {
                    return Err(syntax(
                        src,
                        pos,
                        format!("expected a number, a name or `(` before `)`{percent}"),
                    ))
                }
                Tok::Comma => {
                    return Err(syntax(
                        src,
                        pos,
                        format!("expected an argument before `,`{percent}"),
                    ))
                }
                Tok::Op(op) => {
                    return Err(syntax(
                        src,
                        pos,
                        format!(
                            "expected a number, a name or `(` before `{}`{percent}",
                            op.symbol()
                        ),
                    ))
                }
                Tok::Bang => return Err(syntax(src, pos, "expected a number before `!`")),
            }
        } else {
            match tok {
                Tok::Op(op) => {
                    p.pop_while(op)?;
                    p.stack.push(Item::Op(op));
                    expect_operand = true;
                }
                Tok::Minus | Tok::Plus => {
                    let op = if tok == Tok::Minus {
                        BinOp::Sub
                    } else {
                        BinOp::Add
                    };
                    p.pop_while(op)?;
                    p.stack.push(Item::Op(op));
                    expect_operand = true;
                }
                Tok::Bang => p.emit(Node::Fact, pos)?,
                Tok::RParen => p.close(pos, true)?,
                Tok::Comma => {
                    p.pop_to_bracket()?;
                    match p.stack.last_mut() {
                        Some(Item::Call { args, .. }) => *args += 1,
                        _ => return Err(syntax(src, pos, "`,` outside a function call")),
                    }
                    expect_operand = true;
                }
                Tok::Num(_) | Tok::Ident(_) | Tok::LParen => {
                    return Err(syntax(
                        src,
                        pos,
                        "missing operator (write `2*x`, not `2x` or `2 x`)",
                    ))
                }
            }
        }
    }
    if expect_operand {
        return Err(syntax(
            src,
            src.chars().count() + 1,
            format!(
                "the expression ends where an operand was expected{}",
                if after_mod { PERCENT_HINT } else { "" }
            ),
        ));
    }
    while let Some(item) = p.stack.pop() {
        match item {
            Item::Op(op) => p.emit(Node::Bin(op), 0)?,
            Item::Neg => p.emit(Node::Neg, 0)?,
            Item::Paren(pos) | Item::Call { pos, .. } => {
                return Err(syntax(src, pos, "unclosed `(`"))
            }
        }
    }
    let Parser {
        nodes,
        literals,
        var_names,
        max_height,
        ..
    } = p;
    // Variables are numbered alphabetically, the default order for functions of several variables.
    let mut order: Vec<usize> = (0..var_names.len()).collect();
    order.sort_by(|a, b| var_names[*a].0.cmp(&var_names[*b].0));
    let mut remap = vec![0u32; var_names.len()];
    for (new, old) in order.iter().enumerate() {
        remap[*old] = new as u32;
    }
    let nodes = nodes
        .into_iter()
        .map(|n| match n {
            Node::Var(i) => Node::Var(remap[i as usize]),
            other => other,
        })
        .collect();
    let vars = order.iter().map(|i| var_names[*i].0.clone()).collect();
    let var_positions = order.iter().map(|i| var_names[*i].1).collect();
    Ok(Expr {
        nodes,
        literals,
        vars,
        var_positions,
        max_stack: max_height,
    })
}

struct Parser<'a> {
    src: &'a str,
    nodes: Vec<Node>,
    literals: Vec<Literal>,
    var_names: Vec<(String, usize)>,
    stack: Vec<Item>,
    depth: usize,
    /// Values on the evaluation stack after the nodes emitted so far.
    height: usize,
    max_height: usize,
}

impl Parser<'_> {
    fn var(&mut self, name: String, pos: usize) -> u32 {
        if let Some(i) = self.var_names.iter().position(|(n, _)| *n == name) {
            return i as u32;
        }
        self.var_names.push((name, pos));
        (self.var_names.len() - 1) as u32
    }

    fn emit(&mut self, node: Node, pos: usize) -> Result<(), ExprError> {
        let (pops, pushes) = match node {
            Node::Num(_) | Node::Const(_) | Node::Var(_) => (0, 1),
            Node::Neg | Node::Fact => (1, 1),
            Node::Bin(_) => (2, 1),
            Node::Call(_, argc) => (argc as usize, 1),
        };
        if self.height < pops {
            return Err(syntax(self.src, pos.max(1), "missing operand"));
        }
        self.height = self.height - pops + pushes;
        self.max_height = self.max_height.max(self.height);
        self.nodes.push(node);
        Ok(())
    }

    fn open(&mut self, item: Item, limits: ParseLimits) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth as u64 > limits.max_depth {
            return Err(ExprError::TooDeep {
                depth: self.depth,
                max: limits.max_depth,
            });
        }
        self.stack.push(item);
        Ok(())
    }

    /// Pops operators that bind at least as tightly as `incoming` (right-associative `**` excepted).
    fn pop_while(&mut self, incoming: BinOp) -> Result<(), ExprError> {
        const NEG_PRECEDENCE: u8 = 3;
        loop {
            let pop = match self.stack.last() {
                Some(Item::Op(top)) => {
                    top.precedence() > incoming.precedence()
                        || (top.precedence() == incoming.precedence() && incoming != BinOp::Pow)
                }
                Some(Item::Neg) => NEG_PRECEDENCE >= incoming.precedence(),
                _ => false,
            };
            if !pop {
                return Ok(());
            }
            match self.stack.pop() {
                Some(Item::Op(op)) => self.emit(Node::Bin(op), 0)?,
                Some(Item::Neg) => self.emit(Node::Neg, 0)?,
                _ => return Ok(()),
            }
        }
    }

    fn pop_to_bracket(&mut self) -> Result<(), ExprError> {
        while let Some(item) = self.stack.last() {
            match item {
                Item::Op(op) => {
                    let op = *op;
                    self.stack.pop();
                    self.emit(Node::Bin(op), 0)?;
                }
                Item::Neg => {
                    self.stack.pop();
                    self.emit(Node::Neg, 0)?;
                }
                Item::Paren(_) | Item::Call { .. } => break,
            }
        }
        Ok(())
    }

    /// Handles `)`: `had_operand` is false only for `f()`.
    fn close(&mut self, pos: usize, had_operand: bool) -> Result<(), ExprError> {
        self.pop_to_bracket()?;
        self.depth = self.depth.saturating_sub(1);
        match self.stack.pop() {
            Some(Item::Paren(_)) => Ok(()),
            Some(Item::Call {
                func,
                pos: fpos,
                args,
            }) => {
                let argc = args + usize::from(had_operand);
                let (min, max) = func.arity();
                if argc < min || argc > max {
                    let want = match (min, max) {
                        (a, b) if a == b => format!("{a}"),
                        (a, usize::MAX) => format!("at least {a}"),
                        (a, b) => format!("{a} or {b}"),
                    };
                    return Err(syntax(
                        self.src,
                        fpos,
                        format!(
                            "`{}` takes {want} argument{}, got {argc}",
                            func.name(),
                            if want == "1" { "" } else { "s" }
                        ),
                    ));
                }
                self.emit(Node::Call(func, argc as u32), pos)
            }
            _ => Err(syntax(self.src, pos, "unmatched `)`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn infix(s: &str) -> String {
        parse(s, ParseLimits::default())
            .map(|e| e.to_infix())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn precedence_follows_python() {
        assert_eq!(infix("1 + 2 * 3"), "(1 + (2 * 3))");
        assert_eq!(infix("2 ** 3 ** 2"), "(2 ** (3 ** 2))");
        assert_eq!(infix("-2 ** 2"), "(-(2 ** 2))");
        assert_eq!(infix("2 ** -1"), "(2 ** (-1))");
        assert_eq!(infix("2 ** -1 * 3"), "((2 ** (-1)) * 3)");
        assert_eq!(infix("-3!"), "(-(3!))");
        assert_eq!(infix("2^3!"), "(2 ** (3!))");
        assert_eq!(infix("8 - 3 - 2"), "((8 - 3) - 2)");
        assert_eq!(infix("7 // 2 % 3"), "((7 // 2) % 3)");
        assert_eq!(infix("-x*y"), "((-x) * y)");
        assert_eq!(
            infix("atan2(1, -2) + max(1, 2, 3)"),
            "(atan2(1, (-2)) + max(1, 2, 3))"
        );
    }

    #[test]
    fn a_percent_sign_gets_a_hint() {
        for src in ["50%", "15% * 200", "(15%)", "max(5%, 2)"] {
            let err = parse(src, ParseLimits::default()).unwrap_err();
            assert!(
                err.to_string().contains("not a percent sign"),
                "{src}: {err}"
            );
        }
        let err = parse("1 + * 2", ParseLimits::default()).unwrap_err();
        assert!(!err.to_string().contains("percent"), "{err}");
        assert_eq!(infix("7 % 3"), "(7 % 3)");
    }

    #[test]
    fn errors_point_at_the_character() {
        let err = parse("1 + * 2", ParseLimits::default()).unwrap_err();
        assert!(
            matches!(err, ExprError::Syntax { position: 5, .. }),
            "{err}"
        );
        let err = parse("2 3", ParseLimits::default()).unwrap_err();
        assert!(
            matches!(err, ExprError::Syntax { position: 3, .. }),
            "{err}"
        );
        let err = parse("(1+2", ParseLimits::default()).unwrap_err();
        assert!(
            matches!(err, ExprError::Syntax { position: 1, .. }),
            "{err}"
        );
        assert!(infix("sqrt()").contains("takes 1 argument, got 0"));
        assert!(infix("sqrt(1, 2)").contains("takes 1 argument, got 2"));
        assert!(infix("foo(2)").contains("unknown function `foo`"));
        assert!(infix("1..2").starts_with("error"));
        assert!(infix("sqrt 2").contains("needs parentheses"));
    }

    #[test]
    fn variables_are_sorted() {
        let e = parse("z + a*x + a", ParseLimits::default()).unwrap();
        assert_eq!(e.variables(), ["a", "x", "z"]);
    }

    #[test]
    fn depth_and_length_are_capped_without_recursion() {
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        let big = ParseLimits {
            max_len: 1 << 20,
            max_depth: 1 << 20,
        };
        assert!(parse(&deep, big).is_ok());
        assert!(matches!(
            parse(&deep, ParseLimits::default()),
            Err(ExprError::TooLong { .. })
        ));
        let small = ParseLimits {
            max_len: 1 << 20,
            max_depth: 1000,
        };
        assert!(matches!(
            parse(&deep, small),
            Err(ExprError::TooDeep { depth: 1001, .. })
        ));
    }
}
