//! [`OptionsError`], what every reader of the options returns: below both `options.rs` and the
//! Coder room's reading of `backend` (`src/coder/options.rs`), which each name it.

use std::borrow::Cow;

use crate::tools::catalog::CatalogError;

/// An option the runtime refuses: `options/invalid` (constructor) or `run/bad-request` (a run),
/// naming the field; or a bad `toolNamePrefix`, as the catalog says.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionsError {
    /// A field of the wrong shape or out of range.
    Field {
        /// `options/invalid` or `run/bad-request`.
        code: &'static str,
        /// The option's name, as the app wrote it.
        field: Cow<'static, str>,
        /// What is wrong, for a person.
        message: Cow<'static, str>,
    },
    /// `toolNamePrefix` is not a valid prefix.
    Prefix(CatalogError),
}

impl OptionsError {
    /// `options/invalid` about `field`. Out of line: one copy for every field.
    #[inline(never)]
    pub(crate) fn invalid(field: &'static str, message: impl Into<Cow<'static, str>>) -> Self {
        OptionsError::Field {
            code: "options/invalid",
            field: Cow::Borrowed(field),
            message: message.into(),
        }
    }

    /// `run/bad-request` about `field`.
    #[inline(never)]
    pub(crate) fn bad_request(field: &'static str, message: impl Into<Cow<'static, str>>) -> Self {
        OptionsError::Field {
            code: "run/bad-request",
            field: Cow::Borrowed(field),
            message: message.into(),
        }
    }
}
