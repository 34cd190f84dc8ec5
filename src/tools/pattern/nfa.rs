//! The matcher: a parsed pattern ([`Node`]) compiled to a Thompson NFA ([`Program`]), and a Pike VM
//! that runs it over a text, every thread in step, one char at a time.
//!
//! A search costs `O(m × n)` for `m` instructions (at most [`MAX_STATES`](super::MAX_STATES)) and a
//! text of `n` chars: at each position, each instruction is visited at most once (a sparse set of
//! the threads alive), whatever the pattern, so `^(a+)+$` or `(a|aa)*b` cannot backtrack; and the
//! memory is `O(m)`, not `O(n)`. The steps spent (the threads alive at each position, summed) are
//! counted against a budget, and a search that would spend more stops without a verdict
//! ([`MAX_MATCH_STEPS`](super::MAX_MATCH_STEPS) for one validation). Only whether there is a match
//! is computed (no captures, no positions), so greedy and lazy quantifiers, and the order of
//! alternatives, are the same here.

/// A pattern as a tree (made by `parse.rs`). Chars are the chars the matcher sees (lone
/// surrogates as their stand-ins).
pub(super) enum Node {
    /// Matches the empty string.
    Empty,
    /// One char.
    Char(u32),
    /// One char of a set, by its index in the parsed pattern's sets.
    Set(usize),
    /// An assertion.
    Look(Look),
    /// One after the other.
    Concat(Vec<Node>),
    /// One of them.
    Alt(Vec<Node>),
    /// From `min` to `max` (`None`: no limit) times.
    Repeat(Box<Node>, u32, Option<u32>),
}

/// An assertion about the position between two chars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Look {
    /// `^`: the start of the text (no multi-line flag).
    Start,
    /// `$`: the end of the text.
    End,
    /// `\b`: an ASCII word char on exactly one side.
    WordBoundary,
    /// `\B`: not `\b`.
    NotWordBoundary,
}

/// One instruction; a thread at an instruction waits for a char (`Char`, `Set`) or moves on
/// without one.
#[derive(Debug, Clone, Copy)]
enum Inst {
    /// This char, then the next instruction.
    Char(u32),
    /// A char of this set, then the next instruction.
    Set(u32),
    /// Both ways.
    Split(u32, u32),
    /// Go to.
    Jmp(u32),
    /// The next instruction, if the assertion holds here.
    Look(Look),
    /// A match.
    Match,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub(super) struct Program {
    insts: Vec<Inst>,
    /// The sets of the `Set` instructions: ranges, sorted.
    sets: Vec<Box<[(u32, u32)]>>,
    /// What one thread's step costs against the budget: 1, more when a set is so large that
    /// finding a char in it (a binary search) takes several times as long.
    weight: u64,
}

/// The program would have more than the limit of instructions.
pub(super) struct TooLarge;

impl Program {
    /// Compiles `node` into at most `limit` instructions.
    pub(super) fn compile(
        node: &Node,
        sets: Vec<Box<[(u32, u32)]>>,
        limit: usize,
    ) -> Result<Program, TooLarge> {
        let mut c = Compiler {
            insts: Vec::new(),
            limit,
        };
        c.emit(node)?;
        c.push(Inst::Match)?;
        // A set of up to 7 ranges costs about what a char does; each doubling past it a step more.
        let ranges = sets.iter().map(|s| s.len()).max().unwrap_or(0) as u64;
        let weight = (ranges + 1).ilog2().saturating_sub(2).max(1) as u64;
        Ok(Program {
            insts: c.insts,
            sets,
            weight,
        })
    }

    /// Whether the program matches somewhere in `text`, spending at most `steps_left` steps
    /// (`None` when they run out first). A step is one thread at one position (an instruction
    /// visited there; more than one when the sets are large), plus one per char: at most
    /// `m × weight + 1` per char for `m` instructions.
    pub(super) fn is_match(&self, text: &str, steps_left: &mut u64) -> Option<bool> {
        let n = self.insts.len();
        let mut now = Threads::new(n);
        let mut next = Threads::new(n);
        let mut stack = Vec::new();
        let mut before: Option<char> = None;
        let mut chars = text.chars();
        let mut ahead = chars.next();
        // A search: a new thread starts at every position, but one that must start at the start
        // of the text (`^...`) only there.
        let anchored = matches!(self.insts.first(), Some(Inst::Look(Look::Start)));
        loop {
            let here = Here {
                before,
                after: ahead,
            };
            if before.is_none() || !anchored {
                if self.add(&mut now, 0, here, &mut stack) {
                    return Some(true);
                }
            } else if now.dense.is_empty() {
                return Some(false);
            }
            let Some(c) = ahead else {
                return Some(false);
            };
            // The work of this position: every thread alive steps over `c`.
            let cost = now.dense.len() as u64 * self.weight + 1;
            if *steps_left < cost {
                return None;
            }
            *steps_left -= cost;
            ahead = chars.next();
            let there = Here {
                before: Some(c),
                after: ahead,
            };
            next.clear();
            for &pc in &now.dense {
                let step = match self.insts[pc as usize] {
                    Inst::Char(want) => want == c as u32,
                    Inst::Set(set) => contains(&self.sets[set as usize], c as u32),
                    _ => false,
                };
                if step && self.add(&mut next, pc + 1, there, &mut stack) {
                    return Some(true);
                }
            }
            std::mem::swap(&mut now, &mut next);
            before = Some(c);
        }
    }

    /// Adds the thread at `pc` to `threads`, following every instruction that needs no char
    /// (splits, jumps, assertions that hold `here`). Returns whether it reached `Match`.
    fn add(&self, threads: &mut Threads, pc: u32, here: Here, stack: &mut Vec<u32>) -> bool {
        stack.push(pc);
        while let Some(pc) = stack.pop() {
            if !threads.insert(pc) {
                continue;
            }
            match self.insts[pc as usize] {
                Inst::Split(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                Inst::Jmp(a) => stack.push(a),
                Inst::Look(look) if here.holds(look) => stack.push(pc + 1),
                Inst::Match => {
                    stack.clear();
                    return true;
                }
                _ => {}
            }
        }
        false
    }
}

/// Whether `c` is in the sorted ranges `set`.
fn contains(set: &[(u32, u32)], c: u32) -> bool {
    // The first range that does not end before `c`.
    let at = set.partition_point(|&(_, hi)| hi < c);
    set.get(at).is_some_and(|&(lo, _)| lo <= c)
}

/// A position in the text: the chars on either side.
#[derive(Clone, Copy)]
struct Here {
    before: Option<char>,
    after: Option<char>,
}

impl Here {
    fn holds(self, look: Look) -> bool {
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        match look {
            Look::Start => self.before.is_none(),
            Look::End => self.after.is_none(),
            Look::WordBoundary => word(self.before) != word(self.after),
            Look::NotWordBoundary => word(self.before) == word(self.after),
        }
    }
}

/// A set of instructions (the threads alive at one position): a sparse set, so that clearing is
/// O(1) and each instruction is added once.
struct Threads {
    dense: Vec<u32>,
    /// Where each instruction is in `dense`, if it is there.
    sparse: Vec<u32>,
}

impl Threads {
    fn new(n: usize) -> Threads {
        Threads {
            dense: Vec::with_capacity(n),
            sparse: vec![0; n],
        }
    }

    /// Adds `pc`; false if it was there.
    fn insert(&mut self, pc: u32) -> bool {
        let at = self.sparse[pc as usize] as usize;
        if self.dense.get(at) == Some(&pc) {
            return false;
        }
        self.sparse[pc as usize] = self.dense.len() as u32;
        self.dense.push(pc);
        true
    }

    fn clear(&mut self) {
        self.dense.clear();
    }
}

struct Compiler {
    insts: Vec<Inst>,
    limit: usize,
}

impl Compiler {
    /// Appends an instruction; returns its index.
    fn push(&mut self, inst: Inst) -> Result<u32, TooLarge> {
        if self.insts.len() >= self.limit {
            return Err(TooLarge);
        }
        self.insts.push(inst);
        Ok(self.insts.len() as u32 - 1)
    }

    /// The index the next instruction will have.
    fn here(&self) -> u32 {
        self.insts.len() as u32
    }

    /// Points the split or jump at `at` to `to` (its second way, for a split).
    fn patch(&mut self, at: u32, to: u32) {
        match &mut self.insts[at as usize] {
            Inst::Split(_, b) | Inst::Jmp(b) => *b = to,
            _ => {}
        }
    }

    /// Appends the instructions of `node`. Recursion is bounded: `parse.rs` allows at most
    /// `MAX_GROUP_DEPTH` groups inside one another, each at most three levels of nodes.
    fn emit(&mut self, node: &Node) -> Result<(), TooLarge> {
        match node {
            Node::Empty => {}
            Node::Char(c) => {
                self.push(Inst::Char(*c))?;
            }
            Node::Set(set) => {
                self.push(Inst::Set(*set as u32))?;
            }
            Node::Look(look) => {
                self.push(Inst::Look(*look))?;
            }
            Node::Concat(nodes) => {
                for node in nodes {
                    self.emit(node)?;
                }
            }
            Node::Alt(nodes) => {
                // split(a, next); a; jmp end; next: split(b, next'); b; jmp end; ...; z; end:
                let mut jumps = Vec::new();
                for (i, node) in nodes.iter().enumerate() {
                    if i + 1 == nodes.len() {
                        self.emit(node)?;
                        break;
                    }
                    let split = self.push(Inst::Split(0, 0))?;
                    self.insts[split as usize] = Inst::Split(split + 1, 0);
                    self.emit(node)?;
                    jumps.push(self.push(Inst::Jmp(0))?);
                    let next = self.here();
                    self.patch(split, next);
                }
                let end = self.here();
                for jump in jumps {
                    self.patch(jump, end);
                }
            }
            Node::Repeat(node, min, max) => self.repeat(node, *min, *max)?,
        }
        Ok(())
    }

    /// `node` `min` times, then up to `max - min` times more (any number if `max` is `None`).
    /// Each copy is emitted once per repetition, never per enclosing one: `((a)+)+` is linear.
    fn repeat(&mut self, node: &Node, min: u32, max: Option<u32>) -> Result<(), TooLarge> {
        // `x{n,}` is `x{n-1}` then `x+`, whose one copy loops back.
        let copies = match max {
            None => min.saturating_sub(1),
            Some(_) => min,
        };
        for i in 0..copies {
            let start = self.here();
            self.emit(node)?;
            if i == 0 && self.here() == start {
                // It compiles to nothing (an empty group): any number of it is nothing.
                return Ok(());
            }
        }
        match max {
            None if min > 0 => {
                // body: x; split(body, end); end:
                let body = self.here();
                self.emit(node)?;
                if self.here() > body {
                    self.push(Inst::Split(body, self.here() + 1))?;
                }
            }
            None => {
                // loop: split(body, end); body; jmp loop; end:
                let split = self.push(Inst::Split(0, 0))?;
                self.insts[split as usize] = Inst::Split(split + 1, 0);
                self.emit(node)?;
                self.push(Inst::Jmp(split))?;
                let end = self.here();
                self.patch(split, end);
            }
            Some(max) => {
                // (split(body, end); body) max - min times; end:
                let mut splits = Vec::new();
                for _ in min..max {
                    let split = self.push(Inst::Split(0, 0))?;
                    self.insts[split as usize] = Inst::Split(split + 1, 0);
                    let body = self.here();
                    self.emit(node)?;
                    splits.push(split);
                    if self.here() == body {
                        break; // an empty body: once is as good as any number
                    }
                }
                let end = self.here();
                for split in splits {
                    self.patch(split, end);
                }
            }
        }
        Ok(())
    }
}
