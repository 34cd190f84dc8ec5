//! JSON Schema `pattern` and `patternProperties`: ECMA-262 regular expressions, matched in time
//! linear in the text whatever the pattern.
//!
//! Patterns come from servers (an interrupt's `responseSchema`) and from tool schemas
//! (`tools.json`, `registerTool`), and are applied to text a model wrote (tool arguments) or a
//! user typed (an interrupt's answer). A backtracking engine, the browser's `RegExp` among them,
//! takes exponential time on `^(a+)+$` against 40 `a`s and a `!`: the page froze. So a pattern is
//! parsed here (`parse.rs`) as `new RegExp(pattern, "u")` reads it, compiled to an NFA and run by a
//! Pike VM (`nfa.rs`): `O(m × n)` time for `m` states (at most [`MAX_STATES`]) and a text of `n`
//! chars, and memory for `m` states whatever the text. Matching is a search, like
//! `RegExp.prototype.test`: the pattern may match anywhere unless it is anchored.
//!
//! **ECMA-262 semantics**, where other regex syntaxes differ (`parse.rs` turns each class into
//! explicit ranges of code points): `.` is any code point but `\n`, `\r`, U+2028 and U+2029; `\s`
//! is ECMA's WhiteSpace and LineTerminator (U+0009-U+000D, U+0020, U+00A0, U+1680,
//! U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF); `\d`, `\w` and `\b` are ASCII;
//! `[^]` is any code point and `[]` none; `^` and `$` are the ends of the text only (there are no
//! flags); escapes are ECMA's (`\uXXXX` and a `\uXXXX\uXXXX` surrogate pair, `\u{...}`, `\xHH`,
//! `\cX`, `\0`, `\f\n\r\t\v`, `\/` and the syntax characters, `[\b]`, `[\-]`); and whatever the
//! `u` flag makes a `SyntaxError` (a lone `{`, `}` or `]`, `\a`, `\-` outside a class, `a**`, a
//! range out of order, ...) is [`PatternError::Invalid`]. Only whether the pattern matches is
//! computed, so greedy and lazy quantifiers are the same, and captures are never kept.
//!
//! **Refused** ([`PatternError::Unsupported`], naming the feature): backreferences (`\1`,
//! `\k<name>`) and lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`), which no linear-time matcher runs;
//! Unicode property escapes (`\p{...}`, `\P{...}`), for want of Unicode tables (their bytes); and
//! modifiers (`(?i:...)`), for want of Unicode case folding. Capture group names are checked by
//! ASCII rules only (any non-ASCII char is taken as an identifier char), and not for duplicates:
//! a few patterns the browser calls invalid for their names are matched here.
//!
//! **Bounded**: a pattern over [`MAX_PATTERN_BYTES`], nested over [`MAX_GROUP_DEPTH`] groups deep,
//! or compiling to over [`MAX_STATES`] states (`(a{1000}){1000}`) is [`PatternError::TooLarge`];
//! the runtime's [`Patterns`] keeps at most [`MAX_CACHED`] compiled patterns. And a match spends
//! at most a budget of steps (the threads alive at each char, summed: at most states × chars): one
//! validation (a tool's arguments, an interrupt's answer) has [`MAX_MATCH_STEPS`] for all its
//! patterns together, and a match that would spend more is [`PatternError::OverBudget`], never a
//! verdict, so no text within the limits keeps the page busy for long (docs/numbers.md, "Pattern
//! budget", has the time in Chromium).
//!
//! **Lone surrogates.** Strings of the JSON layer are in its internal form (see [`crate::json`]):
//! a lone UTF-16 surrogate `S` is two chars, the escape U+10FFFF then U+100000 + (S - 0xD800), and
//! a literal U+10FFFF is two U+10FFFF. Before matching, a text holding one is rewritten with one
//! char per JavaScript code point: a lone surrogate becomes its stand-in alone, U+100000 + (S -
//! 0xD800), and U+10FFFF itself. A pattern's code points map the same way (a lone surrogate in the
//! pattern, `\uD83D`, or a class range over the surrogates, means those stand-ins). So `.`, `[^a]`,
//! `\S`, `\W`, `[\u0000-\uFFFF]` and `\uD83D` match a lone surrogate as `RegExp` with the `u`
//! flag does, and `\w`, `\s`, `\d`, literals and astral ranges do not. The one difference: the
//! stand-ins are real chars of plane 16 (Supplementary Private Use Area-B, U+100000-U+1007FF), so
//! a pattern that names those private-use chars (or an astral range over them, such as
//! `[\u{10000}-\u{10FFFF}]`) also matches the lone surrogates they stand for, where the browser
//! does not.

mod nfa;
mod parse;

use std::cell::RefCell;

use crate::json::ESCAPE;
use crate::lean::sorted::SortedMap;

/// The longest pattern compiled, in bytes of UTF-8 (the browser's `RegExp` refuses a pattern of
/// 1 MB as "too large"; tool schemas are at most 64 KiB).
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;

/// How many groups may be open inside one another.
pub const MAX_GROUP_DEPTH: usize = 32;

/// The most instructions a compiled pattern may have (counted repetitions multiply:
/// `(a{1000}){1000}` would have a million). A search takes at most this many steps per char.
pub const MAX_STATES: usize = 20_000;

/// How many compiled patterns (or compile errors) one [`Patterns`] keeps.
pub const MAX_CACHED: usize = 32;

/// The steps all the matches of one validation may spend together (a step: one thread of the
/// matcher at one char; a pattern of `m` states spends at most `m + 1` per char).
pub const MAX_MATCH_STEPS: u64 = 3_000_000;

/// How `pattern` and `patternProperties` are matched: the runtime's [`Patterns`] (ECMA-262
/// patterns in linear time, compiled once), or [`NoPatterns`].
pub trait PatternMatcher {
    /// Whether `text` matches `pattern` (ECMA-262 semantics with the `u` flag, unanchored like
    /// JSON Schema `pattern`), spending at most `steps_left` steps (the steps spent are taken
    /// off). `Err` if the pattern is invalid, refused or too large, or
    /// [`PatternError::OverBudget`] when the steps run out before the verdict.
    fn is_match(
        &self,
        pattern: &str,
        text: &str,
        steps_left: &mut u64,
    ) -> Result<bool, PatternError>;

    /// Whether this matcher really evaluates patterns. When `false`, `pattern` and
    /// `patternProperties` are skipped, and `additionalProperties` is not enforced on an object
    /// whose schema has `patternProperties` (any name might have matched).
    fn evaluates_patterns(&self) -> bool {
        true
    }
}

/// A matcher that accepts everything, for hosts without regex support: it skips `pattern` (every
/// string passes) and `patternProperties` (see [`PatternMatcher::evaluates_patterns`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPatterns;

impl PatternMatcher for NoPatterns {
    fn is_match(&self, _pattern: &str, _text: &str, _: &mut u64) -> Result<bool, PatternError> {
        Ok(true)
    }

    fn evaluates_patterns(&self) -> bool {
        false
    }
}

/// Why a pattern cannot be used. Its text completes "the pattern ... is".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// Not a pattern: `new RegExp(pattern, "u")` throws a `SyntaxError` for it.
    #[error("invalid: {reason} (at index {at})")]
    Invalid {
        /// What is wrong, as the browser says it (lower-case).
        reason: &'static str,
        /// Where, in code points from the start of the pattern.
        at: usize,
    },
    /// A valid pattern that uses a feature this matcher does not run (module docs).
    #[error("not supported: {0}")]
    Unsupported(&'static str),
    /// Over one of the limits (module docs).
    #[error("too large: {0}")]
    TooLarge(String),
    /// Matching it against the text would spend more steps than were left of the budget
    /// (`budget`: the whole budget, [`MAX_MATCH_STEPS`] for the runtime).
    #[error("too costly to match here: over the budget of {budget} steps (states × characters)")]
    OverBudget {
        /// The budget it would exceed.
        budget: u64,
    },
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern(nfa::Program);

impl Pattern {
    /// Compiles an ECMA-262 pattern (as with the `u` flag; in the JSON layer's internal form).
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        if source.len() > MAX_PATTERN_BYTES {
            return Err(PatternError::TooLarge(format!(
                "it is {} bytes long, over the limit of {MAX_PATTERN_BYTES}",
                source.len()
            )));
        }
        let parsed = parse::parse(source)?;
        nfa::Program::compile(&parsed.node, parsed.sets, MAX_STATES)
            .map(Pattern)
            .map_err(|nfa::TooLarge| {
                PatternError::TooLarge(format!("compiled, it would have over {MAX_STATES} states"))
            })
    }

    /// Whether the pattern matches somewhere in `text` (in the JSON layer's internal form), as
    /// `RegExp.prototype.test` answers. No budget: the runtime matches through
    /// [`Pattern::is_match_within`].
    pub fn is_match(&self, text: &str) -> bool {
        self.within(text, &mut { u64::MAX }).unwrap_or(false)
    }

    /// [`Pattern::is_match`] spending at most `steps_left` steps (taken off it):
    /// [`PatternError::OverBudget`] naming `budget` when they run out first.
    pub fn is_match_within(
        &self,
        text: &str,
        steps_left: &mut u64,
        budget: u64,
    ) -> Result<bool, PatternError> {
        self.within(text, steps_left)
            .ok_or(PatternError::OverBudget { budget })
    }

    fn within(&self, text: &str, steps_left: &mut u64) -> Option<bool> {
        // 0xF4 leads every char of plane 16, so a text without one has no internal escape.
        if !text.as_bytes().contains(&0xF4) {
            return self.0.is_match(text, steps_left);
        }
        self.0.is_match(&code_points(text), steps_left)
    }
}

/// `text` with one char per JavaScript code point: the internal form's `E X` (a lone surrogate)
/// becomes `X`, its stand-in, and `E E` the char U+10FFFF (module docs).
fn code_points(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == ESCAPE {
            out.push(chars.next().unwrap_or(ESCAPE));
        } else {
            out.push(c);
        }
    }
    out
}

/// The runtime's patterns: compiled once, kept (with compile errors) up to [`MAX_CACHED`]; past
/// that, one is forgotten for each new one.
#[derive(Debug, Default)]
pub struct Patterns {
    /// Each pattern seen, by its text: compiled, or why it cannot be.
    compiled: RefCell<SortedMap<Result<Pattern, PatternError>>>,
}

impl Patterns {
    /// An empty cache.
    pub fn new() -> Patterns {
        Patterns::default()
    }

    /// How many patterns (and errors) are kept now.
    pub fn cached(&self) -> usize {
        self.compiled.borrow().len()
    }
}

impl PatternMatcher for Patterns {
    fn is_match(
        &self,
        pattern: &str,
        text: &str,
        steps_left: &mut u64,
    ) -> Result<bool, PatternError> {
        if pattern.len() > MAX_PATTERN_BYTES {
            // Not kept: the key would be the huge pattern itself (and it is too large).
            return Pattern::new(pattern)
                .and_then(|p| p.is_match_within(text, steps_left, MAX_MATCH_STEPS));
        }
        let mut compiled = self.compiled.borrow_mut();
        if compiled.len() >= MAX_CACHED && !compiled.contains_key(pattern) {
            let first = compiled.keys().next().cloned();
            if let Some(first) = first {
                compiled.remove(&first);
            }
        }
        match compiled.get_or_insert_with(pattern, || Pattern::new(pattern)) {
            Ok(p) => p.is_match_within(text, steps_left, MAX_MATCH_STEPS),
            Err(e) => Err(e.clone()),
        }
    }
}
