// What the command line prints goes through here. tools.json values, file names and export names
// are the folder's, and a folder comes in a pull request: a terminal control in one of them (an ESC
// sequence that moves the cursor, clears the screen or sets the title, BEL, NUL, a C1 control such
// as U+009B, CSI) or a bidi control that reorders a line (Trojan Source) would rewrite the output a
// reviewer reads, and a line break would forge a line. Each is printed as a `\uXXXX` escape instead.

// C0 and C1 controls and DEL; the bidi marks, embeddings, overrides and isolates; the line and
// paragraph separators; a lone surrogate (the `u` flag matches only unpaired ones).
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;
// The same less C0: JSON.stringify escapes those itself, and its own line breaks are the layout.
const UNPRINTABLE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

const escape = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** `text` as one line for the terminal: every control character and line break escaped. */
export function printable(text) {
  return String(text).replace(UNPRINTABLE, escape);
}

/**
 * `value` as JSON text (indented by 2) with no control character but its line breaks. The ones
 * JSON.stringify leaves raw can only be inside strings, where `\uXXXX` is the same character: the
 * text parses to the same value.
 */
export function printableJson(value) {
  return JSON.stringify(value, null, 2).replace(UNPRINTABLE_IN_JSON, escape);
}
