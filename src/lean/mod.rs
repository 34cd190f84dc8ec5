//! Lean replacements for parts of `std` that cost the `.wasm` more than they give this crate.
//!
//! Each module does one job `std` already does, in fewer bytes or less time for the sizes this
//! crate sees. They are private to the crate (the one type that shows in the public API,
//! [`SortedMap`](sorted::SortedMap), is re-exported at the crate root). `clippy.toml` forbids the
//! `std` item each replaces, outside tests, so `make check` keeps new code on them.
//!
//! | module | replaces | why | cost of removing it (`make build`, gzip) |
//! |---|---|---|---|
//! | [`hash`] | `HashMap`/`HashSet` with SipHash | one table layout for the id sets, `FxHasher` | +6,767 bytes, and about 2 % of stream time |
//! | [`ids`] | `HashMap<String, usize>` for the id indexes | no copy of an id per index (memory, issue 38) | -692 bytes, but mixed 20 MB peaks 1.7 MiB higher (11.3 MiB, not 9.6) |
//! | [`sort`] | `slice::sort*` | one heapsort through a trait object instead of a driftsort per type | +13,118 bytes |
//! | [`sorted`] | `BTreeMap`/`BTreeSet`, small `HashMap`s | a vector kept sorted by name | +5,041 bytes (11,808 for the twelve layouts) |
//! | [`text`] | `&s[a..b]`, `str::trim`, `&str` searches | no `slice_error_fail` and its Unicode tables | +54 bytes for `trim`, about 4 KB before gzip for the slicing |
//!
//! To remove one, swap its users back to `std`, drop its line from `clippy.toml`, and check the
//! size report of `make build` against the table above.

pub(crate) mod hash;
pub(crate) mod ids;
pub(crate) mod sort;
pub(crate) mod sorted;
pub(crate) mod text;
