// LangGraph through ag-ui-langgraph (langgraph_app.py, a checkpointer keeps the thread) with
// ChatRuntime in headless Chromium, in both history modes.
import { describe } from "node:test";

import { scenarios, serverSuite } from "./suite.mjs";

const suite = serverSuite("langgraph_app.py");

describe("ag-ui-langgraph, history new", () => {
  scenarios(suite, "new");
});

describe("ag-ui-langgraph, history full", () => {
  scenarios(suite, "full");
});
