//! ECMA-262 pattern syntax, as `new RegExp(pattern, "u")` reads it (ECMA-262 §22.2.1 with
//! `[+UnicodeMode]`, no Annex B), parsed into a [`Node`] tree with the same meaning (module docs of
//! [`super`]).
//!
//! One pass, no recursion: an open group is a [`Frame`] on an explicit stack, so no pattern can
//! overflow the stack here. Every class, class escape and `.` becomes an explicit set of code
//! points computed here (so `\s`, `\w`, `.` and negation mean what ECMA says), with lone surrogates
//! mapped to their stand-ins (the chars the matcher sees, [`super`]).

use super::nfa::{Look, Node};
use super::{PatternError, MAX_GROUP_DEPTH};
use crate::json::ESCAPE;

/// A set of code points as ranges, sorted, not overlapping nor adjacent once normalized.
type Set = Vec<(u32, u32)>;

/// The last code point.
const MAX: u32 = 0x10FFFF;

/// The first stand-in for a lone surrogate: U+D800 is U+100000 (the JSON layer's internal form).
const STAND_IN: u32 = 0x10_0000;

/// `\d`.
const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
/// `\w` (no `i` flag, so no case-folded extras).
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// `\s`: WhiteSpace (TAB, VT, FF, ZWNBSP and the Space_Separator category) and LineTerminator.
const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
/// LineTerminator: what `.` does not match.
const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];

const BACKREFERENCE: &str =
    "backreferences (\\1, \\k<name>) need a backtracking matcher, which can take exponential time";
const LOOKAHEAD: &str = "lookahead ((?=...), (?!...)) has no linear-time match";
const LOOKBEHIND: &str = "lookbehind ((?<=...), (?<!...)) has no linear-time match";
const PROPERTY: &str =
    "Unicode property escapes (\\p{...}, \\P{...}): the matcher has no Unicode property tables";
const MODIFIERS: &str = "modifiers ((?i:...), (?-i:...)): the matcher has no Unicode case folding";

/// Parses `source` (in the JSON layer's internal form) into a tree and its sets of chars.
pub(super) fn parse(source: &str) -> Result<Parsed, PatternError> {
    let mut p = Parser {
        cps: code_points(source),
        at: 0,
        sets: Vec::new(),
    };
    let node = p.pattern()?;
    Ok(Parsed { node, sets: p.sets })
}

/// A parsed pattern.
pub(super) struct Parsed {
    /// What it matches.
    pub(super) node: Node,
    /// The sets its [`Node::Set`]s name, as ranges of the chars the matcher sees, sorted.
    pub(super) sets: Vec<Box<[(u32, u32)]>>,
}

/// A group being read: its finished alternatives, and the terms of the one being read.
#[derive(Default)]
struct Frame {
    alternatives: Vec<Node>,
    terms: Vec<Node>,
}

impl Frame {
    /// The group's node once its `)` (or the end of the pattern) is read.
    fn finish(mut self) -> Node {
        let last = concat(std::mem::take(&mut self.terms));
        if self.alternatives.is_empty() {
            return last;
        }
        self.alternatives.push(last);
        Node::Alt(self.alternatives)
    }
}

/// Terms one after the other.
fn concat(mut terms: Vec<Node>) -> Node {
    match terms.len() {
        0 => Node::Empty,
        1 => terms.pop().unwrap_or(Node::Empty),
        _ => Node::Concat(terms),
    }
}

/// The pattern's code points as JavaScript reads it: the internal form's `E X` is the lone
/// surrogate, `E E` is U+10FFFF.
fn code_points(source: &str) -> Vec<u32> {
    let mut out = Vec::with_capacity(source.len());
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        let c = if c == ESCAPE {
            match chars.next() {
                Some(x @ '\u{100000}'..='\u{1007FF}') => 0xD800 + (x as u32 - STAND_IN),
                _ => MAX,
            }
        } else {
            c as u32
        };
        out.push(c);
    }
    out
}

/// One `ClassAtom`: a code point, or a class escape (`\d`, ...), which cannot end a range.
enum Atom {
    Char(u32),
    Set(Set),
}

struct Parser {
    /// The pattern, one code point each (lone surrogates included).
    cps: Vec<u32>,
    /// The next code point to read.
    at: usize,
    /// The sets read so far ([`Parsed::sets`]).
    sets: Vec<Box<[(u32, u32)]>>,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.peek_at(0)
    }

    /// The code point `n` after the next, as a char (a lone surrogate reads as U+FFFD: it is
    /// only ever a literal).
    fn peek_at(&self, n: usize) -> Option<char> {
        let c = *self.cps.get(self.at + n)?;
        Some(char::from_u32(c).unwrap_or('\u{FFFD}'))
    }

    /// The next code point, and the char it reads as.
    fn next(&mut self) -> Option<(u32, char)> {
        let c = *self.cps.get(self.at)?;
        self.at += 1;
        Some((c, char::from_u32(c).unwrap_or('\u{FFFD}')))
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.at += 1;
        }
        hit
    }

    /// A `SyntaxError` found at code point `at`.
    #[inline(never)]
    fn invalid(reason: &'static str, at: usize) -> PatternError {
        PatternError::Invalid { reason, at }
    }

    /// `Pattern`: alternatives of terms, read left to right, each open group a [`Frame`].
    fn pattern(&mut self) -> Result<Node, PatternError> {
        let mut open: Vec<Frame> = Vec::new();
        let mut frame = Frame::default();
        // Whether the last term was an atom (a quantifier may follow) rather than an assertion,
        // a quantifier, or the start of an alternative.
        let mut quantifiable = false;
        while let Some((c, ch)) = self.next() {
            let start = self.at - 1;
            let mut term = None;
            quantifiable = match ch {
                '^' => {
                    term = Some(Node::Look(Look::Start));
                    false
                }
                '$' => {
                    term = Some(Node::Look(Look::End));
                    false
                }
                '|' => {
                    let terms = std::mem::take(&mut frame.terms);
                    frame.alternatives.push(concat(terms));
                    false
                }
                '.' => {
                    term = Some(self.set(&negate(LINE_TERMINATORS)));
                    true
                }
                '(' => {
                    if open.len() >= MAX_GROUP_DEPTH {
                        return Err(PatternError::TooLarge(format!(
                            "its groups nest more than {MAX_GROUP_DEPTH} deep"
                        )));
                    }
                    self.group(start)?;
                    open.push(std::mem::take(&mut frame));
                    false
                }
                ')' => {
                    let Some(outer) = open.pop() else {
                        return Err(Self::invalid("unmatched ')'", start));
                    };
                    term = Some(std::mem::replace(&mut frame, outer).finish());
                    true
                }
                '*' | '+' | '?' | '{' => {
                    let (min, max) = match ch {
                        '*' => (0, None),
                        '+' => (1, None),
                        '?' => (0, Some(1)),
                        _ => self
                            .braces()
                            .ok_or_else(|| Self::invalid("incomplete quantifier", start))?,
                    };
                    let atom = frame.terms.pop().filter(|_| quantifiable);
                    let Some(atom) = atom else {
                        return Err(Self::invalid("nothing to repeat", start));
                    };
                    if max.is_some_and(|max| max < min) {
                        return Err(Self::invalid(
                            "numbers out of order in {} quantifier",
                            start,
                        ));
                    }
                    // A `?` after it makes it non-greedy, which does not change whether the
                    // pattern matches.
                    self.eat('?');
                    term = Some(Node::Repeat(Box::new(atom), min, max));
                    false
                }
                '}' | ']' => return Err(Self::invalid("lone quantifier brackets", start)),
                '[' => {
                    let set = self.class()?;
                    term = Some(self.set(&set));
                    true
                }
                '\\' => {
                    let (node, atom) = self.atom_escape(start)?;
                    term = Some(node);
                    atom
                }
                _ => {
                    term = Some(Node::Char(stand_in(c)));
                    true
                }
            };
            frame.terms.extend(term);
        }
        if !open.is_empty() {
            return Err(Self::invalid("unterminated group", self.at));
        }
        Ok(frame.finish())
    }

    /// `{n}`, `{n,}` or `{n,m}` after the `{`; `None` if it is not one (a `SyntaxError` with the
    /// `u` flag). Numbers past `u32::MAX` are `u32::MAX`: too large to compile anyway.
    fn braces(&mut self) -> Option<(u32, Option<u32>)> {
        let min = self.decimal()?;
        if self.eat('}') {
            return Some((min, Some(min)));
        }
        if !self.eat(',') {
            return None;
        }
        if self.eat('}') {
            return Some((min, None));
        }
        let max = self.decimal()?;
        self.eat('}').then_some((min, Some(max)))
    }

    fn decimal(&mut self) -> Option<u32> {
        let mut n: Option<u32> = None;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            self.at += 1;
            n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d));
        }
        n
    }

    /// After `(` at `start`: a group (capturing, named or not, or `(?:`; captures are never
    /// read), or a refused or invalid one.
    fn group(&mut self, start: usize) -> Result<(), PatternError> {
        if self.eat('?') {
            match self.next().map(|(_, ch)| ch) {
                Some(':') => {}
                Some('=' | '!') => return Err(PatternError::Unsupported(LOOKAHEAD)),
                Some('<') if matches!(self.peek(), Some('=' | '!')) => {
                    return Err(PatternError::Unsupported(LOOKBEHIND))
                }
                Some('<') => self.group_name()?,
                _ => {
                    self.at = start + 2;
                    if self.modifiers() {
                        return Err(PatternError::Unsupported(MODIFIERS));
                    }
                    return Err(Self::invalid("invalid group", start));
                }
            }
        }
        Ok(())
    }

    /// Whether `[ims]*(-[ims]*)?:` follows: the modifiers of `(?i:...)`.
    fn modifiers(&mut self) -> bool {
        let flags = |t: &mut Self| {
            while matches!(t.peek(), Some('i' | 'm' | 's')) {
                t.at += 1;
            }
        };
        flags(self);
        if self.eat('-') {
            flags(self);
        }
        self.peek() == Some(':')
    }

    /// A capture group's name and its `>`, after `(?<`. ASCII chars must be identifier chars
    /// (`$`, `_`, letters, digits but not first); other chars are taken as they come (no Unicode
    /// tables for ID_Start and ID_Continue).
    fn group_name(&mut self) -> Result<(), PatternError> {
        let mut first = true;
        loop {
            let start = self.at;
            let bad = || Self::invalid("invalid capture group name", start);
            let (mut c, ch) = self.next().ok_or_else(bad)?;
            if ch == '>' && !first {
                return Ok(());
            }
            if ch == '\\' {
                if !self.eat('u') {
                    return Err(bad());
                }
                c = self.unicode_escape(start)?;
            }
            let ok = match char::from_u32(c) {
                Some('a'..='z' | 'A'..='Z' | '$' | '_') => true,
                Some('0'..='9' | '\u{200C}' | '\u{200D}') => !first,
                _ => c >= 0x80 && !(0xD800..=0xDFFF).contains(&c),
            };
            if !ok {
                return Err(bad());
            }
            first = false;
        }
    }

    /// After a `\` at `start`, outside a class: the term, and whether a quantifier may follow.
    fn atom_escape(&mut self, start: usize) -> Result<(Node, bool), PatternError> {
        let (_, ch) = self
            .next()
            .ok_or_else(|| Self::invalid("\\ at end of pattern", start))?;
        Ok(match ch {
            'b' => (Node::Look(Look::WordBoundary), false),
            'B' => (Node::Look(Look::NotWordBoundary), false),
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => (self.set(&class_escape(ch)), true),
            'p' | 'P' => return Err(PatternError::Unsupported(PROPERTY)),
            '1'..='9' | 'k' => return Err(PatternError::Unsupported(BACKREFERENCE)),
            _ => {
                let c = self.character_escape(ch, start)?;
                (Node::Char(stand_in(c)), true)
            }
        })
    }

    /// `CharacterEscape` after the `\` at `start` and its first char `ch`.
    fn character_escape(&mut self, ch: char, start: usize) -> Result<u32, PatternError> {
        let invalid = |reason| Self::invalid(reason, start);
        Ok(match ch {
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'v' => 0x0B,
            'c' => match self.next() {
                Some((c, 'a'..='z' | 'A'..='Z')) => c % 32,
                _ => return Err(invalid("invalid unicode escape")),
            },
            '0' => {
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    return Err(invalid("invalid decimal escape"));
                }
                0
            }
            'x' => self.hex(2).ok_or_else(|| invalid("invalid escape"))?,
            'u' => self.unicode_escape(start)?,
            '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' => ch as u32,
            _ => return Err(invalid("invalid escape")),
        })
    }

    /// After `\u`: `{X...}` (at most U+10FFFF), or four hex digits; a lead surrogate's escape
    /// followed by a trail surrogate's escape is the pair's code point.
    fn unicode_escape(&mut self, start: usize) -> Result<u32, PatternError> {
        let invalid = || Self::invalid("invalid unicode escape", start);
        if self.eat('{') {
            let mut value = 0u32;
            let mut digits = 0;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                self.at += 1;
                digits += 1;
                value = (value << 4) | d;
                if value > MAX {
                    return Err(invalid());
                }
            }
            if digits == 0 || !self.eat('}') {
                return Err(invalid());
            }
            return Ok(value);
        }
        let lead = self.hex(4).ok_or_else(invalid)?;
        if (0xD800..=0xDBFF).contains(&lead)
            && self.peek() == Some('\\')
            && self.peek_at(1) == Some('u')
        {
            let back = self.at;
            self.at += 2;
            match self.hex(4) {
                Some(trail @ 0xDC00..=0xDFFF) => {
                    return Ok(0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00))
                }
                _ => self.at = back,
            }
        }
        Ok(lead)
    }

    /// Exactly `n` hex digits.
    fn hex(&mut self, n: usize) -> Option<u32> {
        let mut value = 0;
        for _ in 0..n {
            let d = self.peek()?.to_digit(16)?;
            self.at += 1;
            value = (value << 4) | d;
        }
        Some(value)
    }

    /// A class after its `[`, as the set of code points it matches.
    fn class(&mut self) -> Result<Set, PatternError> {
        let negated = self.eat('^');
        let mut set = Set::new();
        loop {
            let start = self.at;
            let (c, ch) = self
                .next()
                .ok_or_else(|| Self::invalid("unterminated character class", start))?;
            if ch == ']' {
                break;
            }
            let first = self.class_atom(c, ch, start)?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.at += 1;
                let end = self.at;
                let (c, ch) = self
                    .next()
                    .ok_or_else(|| Self::invalid("unterminated character class", end))?;
                match (first, self.class_atom(c, ch, end)?) {
                    (Atom::Char(a), Atom::Char(b)) if a <= b => set.push((a, b)),
                    (Atom::Char(_), Atom::Char(_)) => {
                        return Err(Self::invalid(
                            "range out of order in character class",
                            start,
                        ))
                    }
                    _ => return Err(Self::invalid("invalid character class", start)),
                }
            } else {
                match first {
                    Atom::Char(a) => set.push((a, a)),
                    Atom::Set(s) => set.extend(s),
                }
            }
        }
        normalize(&mut set);
        Ok(if negated { negate(&set) } else { set })
    }

    /// One `ClassAtom` whose first code point `c` (read as `ch`) is at `start`.
    fn class_atom(&mut self, c: u32, ch: char, start: usize) -> Result<Atom, PatternError> {
        if ch != '\\' {
            return Ok(Atom::Char(c));
        }
        let (_, ch) = self
            .next()
            .ok_or_else(|| Self::invalid("\\ at end of pattern", start))?;
        Ok(match ch {
            'b' => Atom::Char(0x08),
            '-' => Atom::Char(0x2D),
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => Atom::Set(class_escape(ch)),
            'p' | 'P' => return Err(PatternError::Unsupported(PROPERTY)),
            _ => Atom::Char(self.character_escape(ch, start)?),
        })
    }

    /// A set of code points as a node over the chars the matcher sees (lone surrogates as their
    /// stand-ins): one char, or a set kept in [`Parsed::sets`].
    fn set(&mut self, set: &[(u32, u32)]) -> Node {
        let mut seen = Set::new();
        for &(lo, hi) in set {
            if lo < 0xD800 {
                seen.push((lo, hi.min(0xD7FF)));
            }
            if lo <= 0xDFFF && hi >= 0xD800 {
                seen.push((stand_in(lo.max(0xD800)), stand_in(hi.min(0xDFFF))));
            }
            if hi > 0xDFFF {
                seen.push((lo.max(0xE000), hi));
            }
        }
        normalize(&mut seen);
        match *seen.as_slice() {
            [(a, b)] if a == b => Node::Char(a),
            _ => {
                self.sets.push(seen.into_boxed_slice());
                Node::Set(self.sets.len() - 1)
            }
        }
    }
}

/// The char the matcher sees for code point `c`: itself, or for a lone surrogate its stand-in.
fn stand_in(c: u32) -> u32 {
    match c {
        0xD800..=0xDFFF => STAND_IN + (c - 0xD800),
        _ => c,
    }
}

/// `\d`, `\D`, `\s`, `\S`, `\w`, `\W`.
fn class_escape(ch: char) -> Set {
    let base = match ch.to_ascii_lowercase() {
        'd' => DIGIT,
        's' => SPACE,
        _ => WORD,
    };
    if ch.is_ascii_uppercase() {
        negate(base)
    } else {
        base.to_vec()
    }
}

/// Sorts and merges overlapping and adjacent ranges.
fn normalize(set: &mut Set) {
    crate::lean::sort::sort(set);
    let mut merged: Set = Vec::with_capacity(set.len());
    for &(lo, hi) in set.iter() {
        match merged.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    *set = merged;
}

/// Every code point not in `set` (normalized).
fn negate(set: &[(u32, u32)]) -> Set {
    let mut out = Set::new();
    let mut next = 0;
    for &(lo, hi) in set {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi + 1;
    }
    if next <= MAX {
        out.push((next, MAX));
    }
    out
}
