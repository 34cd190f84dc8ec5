// pydantic-ai's AGUIAdapter (pydantic_app.py) with ChatRuntime in headless Chromium. The adapter
// keeps nothing between requests, so the runtime sends the whole thread: history "full".
import { describe } from "node:test";

import { scenarios, serverSuite } from "./suite.mjs";

const suite = serverSuite("pydantic_app.py");

describe("pydantic-ai AGUIAdapter", () => {
  // The adapter reads a tool message with `error` as a failed result: its model sees
  // {"error": content}.
  scenarios(suite, "full", { modelSees: (content) => JSON.stringify({ error: content }) });
});
