// chat-runtime's error class: imported by the wasm glue (src/wasm/error.rs) and re-exported by the
// package's entry (scripts/merge-package.mjs), so `e instanceof ChatRuntimeError` holds in apps.

/** Every error chat-runtime throws: an `Error` with a stable `code` and, where they apply, details. */
export class ChatRuntimeError extends Error {
  /**
   * @param {string} code e.g. `"run/busy"`, `"tools/fetch"`, `"decode/field"`
   * @param {string} message
   * @param {object} [details] extra fields (`index`, `eventType`, `field`, `status`, `toolName`);
   *   a key the error already has (`name`, `code`, `message`, `stack`, ...) is ignored, but
 *   `cause` becomes the error's standard `cause`.
   */
  constructor(code, message, details) {
    // `details.cause` (what an app's fetch threw, ...) is the standard `Error` cause.
    super(message, details != null && "cause" in details ? { cause: details.cause } : undefined);
    this.name = "ChatRuntimeError";
    this.code = code;
    if (details != null) {
      for (const key of Object.keys(details)) {
        if (!(key in this)) this[key] = details[key];
      }
    }
  }
}
