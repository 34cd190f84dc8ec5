// chat-runtime's error class, declared and documented in src/wasm/types.d.ts (comments here ship
// too): imported by the wasm glue (src/wasm/error.rs), re-exported by the package's entry.
export class ChatRuntimeError extends Error {
  constructor(code, message, details) {
    // `details.cause` becomes the standard cause; a key the error already has is not overwritten.
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
