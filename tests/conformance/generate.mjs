#!/usr/bin/env node
// Conformance corpus generator for chat-runtime.
//
// Produces tests/fixtures/conformance/<case>.sse (the exact bytes the OFFICIAL
// @ag-ui/encoder emits for the case's events, concatenated) and <case>.json
// (JSON.parse of every SSE `data` payload, i.e. the wire JSON), plus index.json.
//
// Every event is validated with the official zod schema from @ag-ui/core
// (EventSchema, a discriminated union over all 31 event types) before it is
// encoded, and every case is checked against the AG-UI ordering rules by a
// small built-in checker. The output is deterministic: fixed ids, fixed
// timestamps, no randomness, no clock reads.
//
// Run: npm run conformance:generate

import { mkdirSync, readFileSync, writeFileSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { EventEncoder } from "@ag-ui/encoder";
import { EventType } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const outDir = join(root, "tests", "fixtures", "conformance");
const require_ = (p) => JSON.parse(readFileSync(join(root, "node_modules", p, "package.json"), "utf8"));
const versions = {
  core: require_("@ag-ui/core").version,
  encoder: require_("@ag-ui/encoder").version,
  zod: require_("zod").version,
};

// ---------------------------------------------------------------------------
// Fixed clock: every case gets timestamps from T0 upward, 1 ms per event that
// asks for one.
const T0 = 1767225600000; // 2026-01-01T00:00:00.000Z
let clock = T0;
const ts = () => clock++;

const E = EventType;
const THREAD = "thread-conf-1";

// A full RunAgentInput, echoed in RUN_STARTED.input of the multi-run case.
const fullRunAgentInput = {
  threadId: THREAD,
  runId: "run-multi-1",
  protocolVersion: "1.0",
  parentRunId: "run-outcomes-interrupt-1",
  state: { counter: 0, todos: [] },
  messages: [
    { id: "in-sys-1", role: "system", content: "You are terse." },
    { id: "in-user-1", role: "user", content: "Book a table for two." },
    {
      id: "in-asst-1",
      role: "assistant",
      toolCalls: [
        {
          id: "in-tc-1",
          type: "function",
          function: { name: "book_table", arguments: "{\"people\":2}" },
        },
      ],
    },
    { id: "in-tool-1", role: "tool", toolCallId: "in-tc-1", content: "pending approval" },
  ],
  tools: [
    {
      name: "book_table",
      description: "Books a table",
      parameters: {
        type: "object",
        properties: { people: { type: "integer", minimum: 1 } },
        required: ["people"],
      },
      metadata: { category: "booking" },
    },
    { name: "noop", description: "Does nothing" },
  ],
  context: [{ description: "user timezone", value: "Europe/Berlin" }],
  forwardedProps: { locale: "de-DE", flags: ["beta"] },
  resume: [
    {
      interruptId: "int-approve-1",
      status: "resolved",
      payload: { approved: true },
      metadata: { reviewer: "ops" },
    },
    { interruptId: "int-input-1", status: "cancelled" },
  ],
};

const usageFull = {
  provider: "openai",
  model: "gpt-test",
  inputTokens: 120,
  outputTokens: 80,
  totalTokens: 200,
  reasoningTokens: 30,
  cachedInputTokens: 64,
  cacheWriteInputTokens: 16,
};

// ---------------------------------------------------------------------------
// Cases. Each is a function so the clock advances deterministically per case.
const cases = [
  {
    name: "text-basic",
    description: "One streamed assistant text message inside a step.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-text-basic", timestamp: ts() },
      { type: E.STEP_STARTED, stepName: "answer", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-tb-1", role: "assistant", timestamp: ts() },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tb-1", delta: "Hello", timestamp: ts() },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tb-1", delta: ", world", timestamp: ts() },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tb-1", delta: "!" },
      {
        type: E.TEXT_MESSAGE_END,
        messageId: "msg-tb-1",
        timestamp: ts(),
        metadata: { finishReason: "stop" },
      },
      { type: E.STEP_FINISHED, stepName: "answer", timestamp: ts() },
      {
        type: E.RUN_FINISHED,
        threadId: THREAD,
        runId: "run-text-basic",
        timestamp: ts(),
        result: { ok: true },
      },
    ],
  },
  {
    name: "text-roles",
    description:
      "TEXT_MESSAGE_START with every streamable role (developer, system, user, assistant), name, rawEvent, metadata; nested steps; an explicit `undefined` field the encoder drops.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-text-roles", protocolVersion: "1.0" },
      { type: E.STEP_STARTED, stepName: "outer", timestamp: ts() },
      { type: E.STEP_STARTED, stepName: "inner", timestamp: ts(), metadata: { depth: 2 } },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-tr-dev", role: "developer", name: "app" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tr-dev", delta: "Prefer metric units." },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-tr-dev" },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-tr-sys", role: "system" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tr-sys", delta: "Be brief." },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-tr-sys" },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-tr-user", role: "user", name: "alice" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tr-user", delta: "How far is it?" },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-tr-user" },
      { type: E.STEP_FINISHED, stepName: "inner", timestamp: ts() },
      {
        type: E.TEXT_MESSAGE_START,
        messageId: "msg-tr-asst",
        role: "assistant",
        name: "planner",
        timestamp: ts(),
        rawEvent: { provider: "anthropic", id: "evt_01", kind: "message_start" },
        metadata: { model: "claude-test", "ag-ui": { lane: 1 }, nullable: null },
        // An explicitly undefined optional field: JSON.stringify drops it.
        subagentRunId: undefined,
      },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tr-asst", delta: "About 12 km." },
      {
        type: E.TEXT_MESSAGE_END,
        messageId: "msg-tr-asst",
        metadata: { finishReason: "stop", usage: { outputTokens: 4 } },
      },
      { type: E.STEP_FINISHED, stepName: "outer", timestamp: ts() },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-text-roles" },
    ],
  },
  {
    name: "text-chunks",
    description:
      "TEXT_MESSAGE_CHUNK shorthand: opener chunk with messageId/role/name, id-less continuation, same-id continuation, implicit close by a new messageId, default role, empty delta, metadata-only chunk; the last chunk stream is closed by RUN_FINISHED.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-text-chunks", timestamp: ts() },
      {
        type: E.TEXT_MESSAGE_CHUNK,
        messageId: "msg-tc-1",
        role: "assistant",
        name: "writer",
        delta: "Chunked ",
        timestamp: ts(),
      },
      { type: E.TEXT_MESSAGE_CHUNK, delta: "text " },
      { type: E.TEXT_MESSAGE_CHUNK, messageId: "msg-tc-1", delta: "works." },
      { type: E.TEXT_MESSAGE_CHUNK, messageId: "msg-tc-2", delta: "" },
      { type: E.TEXT_MESSAGE_CHUNK, delta: "Second message, default role." },
      { type: E.TEXT_MESSAGE_CHUNK, metadata: { finishReason: "stop" } },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-tc-3", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tc-3", delta: "Explicit message between chunk streams." },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-tc-3" },
      {
        type: E.TEXT_MESSAGE_CHUNK,
        messageId: "msg-tc-4",
        role: "user",
        delta: "A user chunk",
        rawEvent: { origin: "voice" },
      },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-text-chunks", timestamp: ts() },
    ],
  },
  {
    name: "tool-calls-parallel",
    description:
      "Two interleaved tool calls under one assistant message (parentMessageId), a third call with no parentMessageId, TOOL_CALL_RESULT with string content, content-part array and empty content, then the final answer.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-tools", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-tp-1", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tp-1", delta: "Let me check two things." },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-tp-1" },
      {
        type: E.TOOL_CALL_START,
        toolCallId: "tc-weather",
        toolCallName: "get_weather",
        parentMessageId: "msg-tp-1",
        timestamp: ts(),
      },
      {
        type: E.TOOL_CALL_START,
        toolCallId: "tc-time",
        toolCallName: "get_time",
        parentMessageId: "msg-tp-1",
        timestamp: ts(),
        metadata: { parallelIndex: 1 },
      },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-weather", delta: "{\"city\":" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-time", delta: "{\"tz\":\"Europe/Berlin\"}" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-weather", delta: "\"Berlin\"}" },
      { type: E.TOOL_CALL_END, toolCallId: "tc-time", timestamp: ts() },
      { type: E.TOOL_CALL_END, toolCallId: "tc-weather", timestamp: ts() },
      {
        type: E.TOOL_CALL_RESULT,
        messageId: "tool-msg-weather",
        toolCallId: "tc-weather",
        content: "{\"tempC\":21,\"sky\":\"clear\"}",
        role: "tool",
        timestamp: ts(),
      },
      {
        type: E.TOOL_CALL_RESULT,
        messageId: "tool-msg-time",
        toolCallId: "tc-time",
        content: [
          { type: "text", id: "part-1", text: "14:05 CET", metadata: { format: "HH:mm" } },
          {
            type: "image",
            source: { type: "url", value: "https://example.com/clock.png", mimeType: "image/png" },
          },
          {
            type: "document",
            id: "part-3",
            source: { type: "file", value: "file-abc123", provider: "openai", mimeType: "application/pdf" },
          },
        ],
      },
      // No parentMessageId: the client decides which assistant message carries it.
      { type: E.TOOL_CALL_START, toolCallId: "tc-log", toolCallName: "log_event" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-log", delta: "" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-log", delta: "{}" },
      { type: E.TOOL_CALL_END, toolCallId: "tc-log" },
      { type: E.TOOL_CALL_RESULT, messageId: "tool-msg-log", toolCallId: "tc-log", content: "" },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-tp-2", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-tp-2", delta: "21 °C and clear; it is 14:05." },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-tp-2" },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-tools", timestamp: ts() },
    ],
  },
  {
    name: "tool-call-chunks",
    description:
      "TOOL_CALL_CHUNK shorthand: opener chunk with toolCallId/toolCallName/parentMessageId, id-less continuation, a second call without parentMessageId implicitly closing the first, closed by TOOL_CALL_RESULT; then a chunked call closed by RUN_FINISHED.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-tool-chunks", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-tcc-1", role: "assistant" },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-tcc-1" },
      {
        type: E.TOOL_CALL_CHUNK,
        toolCallId: "tcc-search",
        toolCallName: "search",
        parentMessageId: "msg-tcc-1",
        delta: "{\"q\":",
        timestamp: ts(),
      },
      { type: E.TOOL_CALL_CHUNK, delta: "\"rust wasm\"}" },
      { type: E.TOOL_CALL_CHUNK, toolCallId: "tcc-fetch", toolCallName: "fetch", delta: "{\"url\":\"https://example.com\"}" },
      { type: E.TOOL_CALL_CHUNK, toolCallId: "tcc-fetch", delta: "", metadata: { final: true } },
      { type: E.TOOL_CALL_RESULT, messageId: "tool-msg-search", toolCallId: "tcc-search", content: "3 hits" },
      { type: E.TOOL_CALL_RESULT, messageId: "tool-msg-fetch", toolCallId: "tcc-fetch", content: "<html></html>", role: "tool" },
      {
        type: E.TOOL_CALL_CHUNK,
        toolCallId: "tcc-notify",
        toolCallName: "notify_user",
        parentMessageId: "msg-tcc-1",
        delta: "{\"text\":\"done\"}",
        rawEvent: { chunkIndex: 0 },
      },
      {
        type: E.RUN_FINISHED,
        threadId: THREAD,
        runId: "run-tool-chunks",
        outcome: { type: "success", pendingToolCallIds: ["tcc-notify"] },
      },
    ],
  },
  {
    name: "state",
    description:
      "STATE_SNAPSHOT then STATE_DELTA exercising all six RFC 6902 ops (test, add, remove, replace, move, copy) incl. `-` array append and ~0/~1 escaped pointers; a non-object snapshot; rawEvent/metadata.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-state", timestamp: ts() },
      {
        type: E.STATE_SNAPSHOT,
        snapshot: {
          counter: 1,
          items: ["a", "b"],
          user: { name: "Ada", tags: [] },
          tmp: true,
          "a/b": 1,
          "m~n": 2,
          nothing: null,
        },
        timestamp: ts(),
      },
      {
        type: E.STATE_DELTA,
        delta: [
          { op: "test", path: "/counter", value: 1 },
          { op: "replace", path: "/counter", value: 2 },
          { op: "add", path: "/items/-", value: "c" },
          { op: "add", path: "/items/0", value: "z" },
          { op: "remove", path: "/tmp" },
          { op: "move", from: "/user/name", path: "/owner" },
          { op: "copy", from: "/items/1", path: "/firstOriginal" },
          { op: "replace", path: "/a~1b", value: { nested: [1, 2, 3] } },
          { op: "remove", path: "/m~0n" },
          { op: "add", path: "/user/tags/0", value: "admin" },
          { op: "test", path: "/nothing", value: null },
        ],
        timestamp: ts(),
        metadata: { source: "reducer" },
      },
      { type: E.STATE_DELTA, delta: [] },
      { type: E.STATE_SNAPSHOT, snapshot: ["state", "may", "be", "an", "array"], rawEvent: { v: 2 } },
      { type: E.STATE_SNAPSHOT, snapshot: { reset: true } },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-state", timestamp: ts() },
    ],
  },
  {
    name: "messages-snapshot",
    description:
      "MESSAGES_SNAPSHOT containing every message role: developer, system, user (string and content-part array with image data/url sources, audio file source, video, document), assistant (content + toolCalls, toolCalls only), tool (with error and with parts), activity, reasoning; message metadata, encryptedValue, subagentRunId.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-snapshot", timestamp: ts() },
      {
        type: E.MESSAGES_SNAPSHOT,
        timestamp: ts(),
        metadata: { reason: "resync" },
        messages: [
          { id: "ms-dev", role: "developer", content: "Use tools when needed.", name: "app" },
          {
            id: "ms-sys",
            role: "system",
            content: "You are a helpful assistant.",
            metadata: { version: 3 },
          },
          { id: "ms-user-1", role: "user", content: "What's in this picture?", name: "alice" },
          {
            id: "ms-user-2",
            role: "user",
            content: [
              { type: "text", text: "Compare these:" },
              {
                type: "image",
                id: "img-1",
                source: { type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" },
                metadata: { detail: "high" },
              },
              { type: "image", source: { type: "url", value: "https://example.com/cat.jpg" } },
              {
                type: "audio",
                source: { type: "file", value: "gs://bucket/a.wav", provider: "gemini", mimeType: "audio/wav" },
              },
              { type: "video", source: { type: "url", value: "https://example.com/v.mp4", mimeType: "video/mp4" } },
              { type: "document", source: { type: "data", value: "JVBERi0=", mimeType: "application/pdf" } },
            ],
          },
          {
            id: "ms-asst-1",
            role: "assistant",
            content: "Checking.",
            name: "vision",
            encryptedValue: "enc:assistant:1",
            toolCalls: [
              {
                id: "ms-tc-1",
                type: "function",
                function: { name: "describe_image", arguments: "{\"id\":\"img-1\"}" },
                encryptedValue: "enc:tc:1",
                metadata: { latencyMs: 12 },
              },
              {
                id: "ms-tc-2",
                type: "function",
                function: { name: "lookup", arguments: "" },
              },
            ],
          },
          { id: "ms-tool-1", role: "tool", toolCallId: "ms-tc-1", content: "A cat on a mat." },
          {
            id: "ms-tool-2",
            role: "tool",
            toolCallId: "ms-tc-2",
            content: "",
            error: "lookup timed out",
            metadata: { retryable: true },
          },
          {
            id: "ms-tool-3",
            role: "tool",
            toolCallId: "ms-tc-2",
            content: [{ type: "text", text: "retry ok" }],
          },
          { id: "ms-asst-2", role: "assistant", toolCalls: [] },
          {
            id: "ms-act-1",
            role: "activity",
            activityType: "PLAN",
            content: { steps: [{ title: "look", done: true }] },
            metadata: { pinned: true },
          },
          {
            id: "ms-reason-1",
            role: "reasoning",
            content: "The user wants a comparison.",
            encryptedValue: "enc:reasoning:1",
          },
          {
            id: "ms-sub-1",
            role: "assistant",
            content: "Subagent reply.",
            subagentRunId: "sa-historic-1",
          },
          { id: "ms-asst-3", role: "assistant", content: "It is a cat." },
        ],
      },
      { type: E.TEXT_MESSAGE_START, messageId: "ms-asst-4", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "ms-asst-4", delta: "Anything else?" },
      { type: E.TEXT_MESSAGE_END, messageId: "ms-asst-4" },
      { type: E.MESSAGES_SNAPSHOT, messages: [] },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-snapshot", timestamp: ts() },
    ],
  },
  {
    name: "activity",
    description:
      "ACTIVITY_SNAPSHOT (replace absent / false / true), ACTIVITY_DELTA with a JSON patch, a second activity type.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-activity", timestamp: ts() },
      {
        type: E.ACTIVITY_SNAPSHOT,
        messageId: "act-plan",
        activityType: "PLAN",
        content: { title: "Trip", steps: [{ title: "flights", done: false }] },
        timestamp: ts(),
      },
      {
        type: E.ACTIVITY_DELTA,
        messageId: "act-plan",
        activityType: "PLAN",
        patch: [
          { op: "replace", path: "/steps/0/done", value: true },
          { op: "add", path: "/steps/-", value: { title: "hotel", done: false } },
        ],
        timestamp: ts(),
      },
      {
        type: E.ACTIVITY_SNAPSHOT,
        messageId: "act-plan",
        activityType: "PLAN",
        content: { title: "ignored when the message exists" },
        replace: false,
      },
      {
        type: E.ACTIVITY_SNAPSHOT,
        messageId: "act-progress",
        activityType: "PROGRESS",
        content: { percent: 10 },
        metadata: { widget: "bar" },
      },
      {
        type: E.ACTIVITY_SNAPSHOT,
        messageId: "act-plan",
        activityType: "PLAN",
        content: { title: "Trip v2", steps: [] },
        replace: true,
        rawEvent: { source: "planner" },
      },
      {
        type: E.ACTIVITY_DELTA,
        messageId: "act-progress",
        activityType: "PROGRESS",
        patch: [{ op: "replace", path: "/percent", value: 100 }],
      },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-activity", timestamp: ts() },
    ],
  },
  {
    name: "reasoning",
    description:
      "REASONING_START/END span with a streamed REASONING_MESSAGE_*, a REASONING_MESSAGE_CHUNK stream (opener, id-less continuation, implicit close by REASONING_END), REASONING_ENCRYPTED_VALUE for a message and for a tool call.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-reasoning", timestamp: ts() },
      { type: E.REASONING_START, messageId: "rs-span-1", timestamp: ts() },
      { type: E.REASONING_MESSAGE_START, messageId: "rs-msg-1", role: "reasoning", timestamp: ts() },
      { type: E.REASONING_MESSAGE_CONTENT, messageId: "rs-msg-1", delta: "First, consider " },
      { type: E.REASONING_MESSAGE_CONTENT, messageId: "rs-msg-1", delta: "" },
      { type: E.REASONING_MESSAGE_CONTENT, messageId: "rs-msg-1", delta: "the distance." },
      { type: E.REASONING_MESSAGE_END, messageId: "rs-msg-1", metadata: { tokens: 7 } },
      {
        type: E.REASONING_ENCRYPTED_VALUE,
        subtype: "message",
        entityId: "rs-msg-1",
        encryptedValue: "gAAAAABencrypted-reasoning-1==",
        timestamp: ts(),
      },
      { type: E.REASONING_MESSAGE_CHUNK, messageId: "rs-msg-2", delta: "Then the time." },
      { type: E.REASONING_MESSAGE_CHUNK, delta: " Done." },
      { type: E.REASONING_END, messageId: "rs-span-1", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "rs-asst-1", role: "assistant" },
      { type: E.TEXT_MESSAGE_END, messageId: "rs-asst-1" },
      { type: E.TOOL_CALL_START, toolCallId: "rs-tc-1", toolCallName: "route", parentMessageId: "rs-asst-1" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "rs-tc-1", delta: "{\"from\":\"A\",\"to\":\"B\"}" },
      { type: E.TOOL_CALL_END, toolCallId: "rs-tc-1" },
      {
        type: E.REASONING_ENCRYPTED_VALUE,
        subtype: "tool-call",
        entityId: "rs-tc-1",
        encryptedValue: "gAAAAABencrypted-toolcall-1==",
        metadata: { provider: "openai" },
      },
      { type: E.REASONING_START, messageId: "rs-2" },
      { type: E.REASONING_MESSAGE_START, messageId: "rs-2", role: "reasoning" },
      { type: E.REASONING_MESSAGE_CONTENT, messageId: "rs-2", delta: "Span and message may share an id." },
      { type: E.REASONING_MESSAGE_END, messageId: "rs-2" },
      { type: E.REASONING_END, messageId: "rs-2" },
      { type: E.REASONING_MESSAGE_CHUNK, messageId: "rs-msg-3", delta: "Chunk stream closed by RUN_FINISHED." },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-reasoning", timestamp: ts() },
    ],
  },
  {
    name: "subagents",
    description:
      "SUBAGENT_STARTED (all optional fields, nested via parentSubagentRunId), events attributed with subagentRunId (steps, text, tool calls, tool result, state, activity, reasoning, raw, custom), SUBAGENT_FINISHED with result + success and suspended outcomes, SUBAGENT_ERROR with code.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-subagents", timestamp: ts() },
      { type: E.STEP_STARTED, stepName: "tools", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "sa-parent-msg", role: "assistant" },
      { type: E.TEXT_MESSAGE_END, messageId: "sa-parent-msg" },
      { type: E.TOOL_CALL_START, toolCallId: "sa-delegate", toolCallName: "delegate", parentMessageId: "sa-parent-msg" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "sa-delegate", delta: "{\"task\":\"research\"}" },
      { type: E.TOOL_CALL_END, toolCallId: "sa-delegate" },
      {
        type: E.SUBAGENT_STARTED,
        subagentRunId: "sa-research-1",
        name: "researcher",
        description: "Finds sources",
        parentToolCallId: "sa-delegate",
        parentMessageId: "sa-parent-msg",
        timestamp: ts(),
        metadata: { depth: 1 },
      },
      // Same step name as the parent's open step: legal, steps are keyed per owner.
      { type: E.STEP_STARTED, stepName: "tools", subagentRunId: "sa-research-1" },
      { type: E.TEXT_MESSAGE_START, messageId: "sa-msg-1", role: "assistant", subagentRunId: "sa-research-1" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "sa-msg-1", delta: "Searching…", subagentRunId: "sa-research-1" },
      { type: E.TEXT_MESSAGE_END, messageId: "sa-msg-1", subagentRunId: "sa-research-1" },
      {
        type: E.TOOL_CALL_START,
        toolCallId: "sa-tc-1",
        toolCallName: "web_search",
        parentMessageId: "sa-msg-1",
        subagentRunId: "sa-research-1",
      },
      { type: E.TOOL_CALL_ARGS, toolCallId: "sa-tc-1", delta: "{\"q\":\"ag-ui\"}", subagentRunId: "sa-research-1" },
      { type: E.TOOL_CALL_END, toolCallId: "sa-tc-1", subagentRunId: "sa-research-1" },
      {
        type: E.TOOL_CALL_RESULT,
        messageId: "sa-tool-msg-1",
        toolCallId: "sa-tc-1",
        content: "2 results",
        subagentRunId: "sa-research-1",
      },
      { type: E.STATE_DELTA, delta: [{ op: "add", path: "/sources", value: 2 }], subagentRunId: "sa-research-1" },
      {
        type: E.ACTIVITY_SNAPSHOT,
        messageId: "sa-act-1",
        activityType: "SEARCH",
        content: { query: "ag-ui" },
        subagentRunId: "sa-research-1",
      },
      {
        type: E.ACTIVITY_DELTA,
        messageId: "sa-act-1",
        activityType: "SEARCH",
        patch: [{ op: "add", path: "/hits", value: 2 }],
        subagentRunId: "sa-research-1",
      },
      { type: E.REASONING_START, messageId: "sa-rs-1", subagentRunId: "sa-research-1" },
      { type: E.REASONING_MESSAGE_START, messageId: "sa-rs-1", role: "reasoning", subagentRunId: "sa-research-1" },
      { type: E.REASONING_MESSAGE_CONTENT, messageId: "sa-rs-1", delta: "Two is enough.", subagentRunId: "sa-research-1" },
      { type: E.REASONING_MESSAGE_END, messageId: "sa-rs-1", subagentRunId: "sa-research-1" },
      { type: E.REASONING_END, messageId: "sa-rs-1", subagentRunId: "sa-research-1" },
      {
        type: E.SUBAGENT_STARTED,
        subagentRunId: "sa-summarise-1",
        name: "summariser",
        parentSubagentRunId: "sa-research-1",
      },
      {
        type: E.TEXT_MESSAGE_CHUNK,
        messageId: "sa-msg-2",
        delta: "Summary pending approval.",
        subagentRunId: "sa-summarise-1",
      },
      { type: E.CUSTOM, name: "progress", value: { pct: 50 }, subagentRunId: "sa-summarise-1" },
      { type: E.RAW, event: { vendor: "x" }, subagentRunId: "sa-summarise-1" },
      {
        type: E.SUBAGENT_FINISHED,
        subagentRunId: "sa-summarise-1",
        outcome: { type: "suspended", interruptIds: ["int-sa-1"] },
        timestamp: ts(),
      },
      { type: E.STEP_FINISHED, stepName: "tools", subagentRunId: "sa-research-1" },
      {
        type: E.SUBAGENT_FINISHED,
        subagentRunId: "sa-research-1",
        result: { sources: ["a", "b"] },
        outcome: { type: "success" },
        rawEvent: { graph: "research" },
      },
      { type: E.SUBAGENT_STARTED, subagentRunId: "sa-flaky-1", name: "flaky" },
      {
        type: E.SUBAGENT_ERROR,
        subagentRunId: "sa-flaky-1",
        message: "upstream 503",
        code: "UPSTREAM_UNAVAILABLE",
        timestamp: ts(),
      },
      { type: E.SUBAGENT_STARTED, subagentRunId: "sa-plain-1", name: "plain" },
      { type: E.SUBAGENT_FINISHED, subagentRunId: "sa-plain-1" },
      {
        type: E.TOOL_CALL_RESULT,
        messageId: "sa-tool-msg-delegate",
        toolCallId: "sa-delegate",
        content: "research done",
      },
      { type: E.STEP_FINISHED, stepName: "tools", timestamp: ts() },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-subagents", timestamp: ts() },
    ],
  },
  {
    name: "run-error",
    description: "RUN_ERROR (code, usage, rawEvent, metadata) ends the run while a text message is still open.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-error", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-re-1", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-re-1", delta: "Partial ans" },
      {
        type: E.RUN_ERROR,
        message: "Model provider rate limited the request",
        code: "RATE_LIMITED",
        usage: [{ provider: "openai", model: "gpt-test", inputTokens: 50, outputTokens: 3, totalTokens: 53 }],
        rawEvent: { status: 429 },
        metadata: { retryAfterMs: 2000 },
        timestamp: ts(),
      },
    ],
  },
  {
    name: "outcomes-interrupt",
    description:
      "RUN_FINISHED with outcome interrupt carrying two interrupts (one with every optional field, one minimal) after a tool call awaiting approval.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-outcomes-interrupt-1", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-oi-1", role: "assistant" },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-oi-1" },
      { type: E.TOOL_CALL_START, toolCallId: "tc-oi-1", toolCallName: "book_table", parentMessageId: "msg-oi-1" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-oi-1", delta: "{\"people\":2}" },
      { type: E.TOOL_CALL_END, toolCallId: "tc-oi-1" },
      {
        type: E.RUN_FINISHED,
        threadId: THREAD,
        runId: "run-outcomes-interrupt-1",
        timestamp: ts(),
        outcome: {
          type: "interrupt",
          interrupts: [
            {
              id: "int-approve-1",
              reason: "tool_approval",
              message: "Approve booking a table for 2?",
              toolCallId: "tc-oi-1",
              responseSchema: {
                type: "object",
                properties: { approved: { type: "boolean" } },
                required: ["approved"],
              },
              expiresAt: "2026-01-02T00:00:00Z",
              metadata: { severity: "low" },
              subagentRunId: "sa-booking-1",
            },
            { id: "int-input-1", reason: "missing_input" },
          ],
        },
        usage: [usageFull],
      },
    ],
  },
  {
    name: "outcomes-cancelled",
    description:
      "Three runs on one stream: RUN_FINISHED outcome cancelled, outcome success with pendingToolCallIds (frontend tool left unanswered) and usage for two providers, outcome success without extras.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-cancelled", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-oc-1", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-oc-1", delta: "Stopping." },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-oc-1" },
      {
        type: E.RUN_FINISHED,
        threadId: THREAD,
        runId: "run-cancelled",
        outcome: { type: "cancelled" },
        timestamp: ts(),
      },
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-pending", parentRunId: "run-cancelled", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-oc-2", role: "assistant" },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-oc-2" },
      { type: E.TOOL_CALL_START, toolCallId: "tc-frontend-1", toolCallName: "confirm_dialog", parentMessageId: "msg-oc-2" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-frontend-1", delta: "{\"text\":\"OK?\"}" },
      { type: E.TOOL_CALL_END, toolCallId: "tc-frontend-1" },
      {
        type: E.RUN_FINISHED,
        threadId: THREAD,
        runId: "run-pending",
        result: "awaiting frontend tool",
        outcome: { type: "success", pendingToolCallIds: ["tc-frontend-1"] },
        usage: [usageFull, { provider: "anthropic", model: "claude-test", inputTokens: 10, outputTokens: 0 }],
        timestamp: ts(),
      },
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-plain-success" },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-plain-success", outcome: { type: "success" }, usage: [] },
    ],
  },
  {
    name: "multi-run",
    description:
      "Several runs on one stream: RUN_STARTED with protocolVersion, parentRunId and a full RunAgentInput echo (all message roles in history, tools, context, state, forwardedProps, resume); a second run ending in RUN_ERROR; a third run started after the error.",
    events: () => [
      {
        type: E.RUN_STARTED,
        threadId: THREAD,
        runId: "run-multi-1",
        protocolVersion: "1.0",
        parentRunId: "run-outcomes-interrupt-1",
        input: fullRunAgentInput,
        timestamp: ts(),
        metadata: { resumed: true },
        rawEvent: { transport: "sse" },
      },
      {
        type: E.TOOL_CALL_RESULT,
        messageId: "tool-msg-multi-1",
        toolCallId: "in-tc-1",
        content: "booked",
        role: "tool",
      },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-mr-1", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-mr-1", delta: "Booked." },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-mr-1" },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-multi-1", timestamp: ts() },
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-multi-2", parentRunId: "run-multi-1", timestamp: ts() },
      { type: E.STEP_STARTED, stepName: "think" },
      { type: E.RUN_ERROR, message: "boom" },
      {
        type: E.RUN_STARTED,
        threadId: THREAD,
        runId: "run-multi-3",
        input: { threadId: THREAD, runId: "run-multi-3", messages: [], tools: [], context: [] },
        timestamp: ts(),
      },
      // Same message id as run 1: ids are tracked per run.
      { type: E.TEXT_MESSAGE_START, messageId: "msg-mr-1", role: "assistant" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-mr-1", delta: " Again." },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-mr-1" },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-multi-3", timestamp: ts() },
    ],
  },
  {
    name: "raw-custom",
    description:
      "RAW (object event with source, string event, null event) and CUSTOM (object, null, false, 0 and array values) with rawEvent/metadata.",
    events: () => [
      { type: E.RUN_STARTED, threadId: THREAD, runId: "run-raw-custom", timestamp: ts() },
      {
        type: E.RAW,
        event: { id: "chatcmpl-1", object: "chat.completion.chunk", choices: [{ delta: { content: "x" } }] },
        source: "openai",
        timestamp: ts(),
      },
      { type: E.RAW, event: "opaque provider line" },
      { type: E.RAW, event: null, metadata: { note: "null is a valid required payload" } },
      {
        type: E.CUSTOM,
        name: "app.highlight",
        value: { range: [3, 9], color: "#ffcc00" },
        timestamp: ts(),
        rawEvent: { upstream: "custom-bus" },
        metadata: { "ag-ui": { ephemeral: true } },
      },
      { type: E.CUSTOM, name: "app.null", value: null },
      { type: E.CUSTOM, name: "app.false", value: false },
      { type: E.CUSTOM, name: "app.zero", value: 0 },
      { type: E.CUSTOM, name: "app.list", value: [1, "two", { three: 3 }, [], {}] },
      { type: E.RUN_FINISHED, threadId: THREAD, runId: "run-raw-custom", result: 0 },
    ],
  },
  {
    name: "unicode",
    description:
      "Non-ASCII and escape-heavy text: emoji (incl. skin tone and a ZWJ sequence split across deltas), CJK, RTL, combining marks, quotes, backslashes, newlines (incl. a blank line and a literal `data: ` inside text), tabs, CR, NUL and other control chars, U+2028/U+2029, BOM, empty deltas; in text, tool args, tool results, state and custom names.",
    events: () => [
      { type: E.RUN_STARTED, threadId: "thread-ünïcødé-🧵", runId: "run-unicode-✓", timestamp: ts() },
      { type: E.TEXT_MESSAGE_START, messageId: "msg-uni-😀", role: "assistant", name: "Zoë" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "Hi 👋🏽 — 你好, مرحبا, שלום, e\u0301 (combining). " },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "Dev: 👩\u200D" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "💻 " },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "quote \" backslash \\ slash / tab\tCR\rLF\n" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "\n\ndata: not a frame\n\n" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "ctrl:\u0000\u0001\u001f\u007f sep:\u2028\u2029 bom:\uFEFF" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ∑ ∞ ≠ 🇩🇪" },
      { type: E.TEXT_MESSAGE_CONTENT, messageId: "msg-uni-😀", delta: "" },
      { type: E.TEXT_MESSAGE_END, messageId: "msg-uni-😀" },
      { type: E.TOOL_CALL_START, toolCallId: "tc-uni-1", toolCallName: "übersetzen", parentMessageId: "msg-uni-😀" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-uni-1", delta: "{\"text\":\"Grüße 🌍" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-uni-1", delta: "" },
      { type: E.TOOL_CALL_ARGS, toolCallId: "tc-uni-1", delta: " \\\"zitiert\\\"\\n\"}" },
      { type: E.TOOL_CALL_END, toolCallId: "tc-uni-1" },
      { type: E.TOOL_CALL_RESULT, messageId: "tool-uni-1", toolCallId: "tc-uni-1", content: "Greetings 🌍 \"quoted\"\n" },
      { type: E.STATE_SNAPSHOT, snapshot: { "ключ": "значение", "emoji🔑": "✓", "": "empty key" } },
      { type: E.STATE_DELTA, delta: [{ op: "add", path: "/ключ~1путь", value: "slash in key 🚀" }] },
      { type: E.CUSTOM, name: "événement", value: "∅" },
      { type: E.RUN_FINISHED, threadId: "thread-ünïcødé-🧵", runId: "run-unicode-✓", timestamp: ts() },
    ],
  },
];

// ---------------------------------------------------------------------------
// Ordering checker: the AG-UI lifecycle rules a strict client enforces
// (mirrors @ag-ui/client verifyEvents for the shapes used here; chunk events
// are expanded the way transformChunks does: a chunk lane stays open until a
// non-chunk event of the same owner, a run boundary or a new chunk id closes it).
function checkOrdering(name, events) {
  const fail = (i, msg) => {
    throw new Error(`case ${name}: event #${i} (${events[i].type}): ${msg}`);
  };
  let runActive = false;
  let ended = false; // RUN_FINISHED or RUN_ERROR seen for the current run
  let msgs, tools, spans, rmsgs, steps, subs, closedSubs, lanes;
  const reset = () => {
    msgs = new Set(); tools = new Set(); spans = new Set(); rmsgs = new Set();
    steps = new Set(); subs = new Set(); closedSubs = new Set(); lanes = new Map();
  };
  reset();
  const closeLane = (owner) => {
    const l = lanes.get(owner);
    if (!l) return;
    lanes.delete(owner);
    ({ text: msgs, tool: tools, reasoning: rmsgs })[l.kind].delete(l.id);
  };
  const chunk = (ev, kind, idField, set) => {
    const owner = ev.subagentRunId;
    const open = lanes.get(owner);
    const id = ev[idField];
    if (open && open.kind === kind && (id === undefined || id === open.id)) return;
    closeLane(owner);
    if (id === undefined) fail(idx, `first ${ev.type} needs ${idField}`);
    if (set.has(id)) fail(idx, `${id} already open`);
    set.add(id);
    lanes.set(owner, { kind, id });
  };
  let idx = 0;
  for (; idx < events.length; idx++) {
    const ev = events[idx];
    const t = ev.type;
    if (idx === 0 && t !== E.RUN_STARTED) fail(idx, "first event must be RUN_STARTED");
    if (t === E.RUN_STARTED) {
      if (runActive && !ended) fail(idx, "RUN_STARTED while a run is active");
      runActive = true; ended = false; reset();
      continue;
    }
    if (ended) fail(idx, "event after the run ended");
    const chunkKinds = [E.TEXT_MESSAGE_CHUNK, E.TOOL_CALL_CHUNK, E.REASONING_MESSAGE_CHUNK];
    const laneClosers = [E.RAW, E.ACTIVITY_SNAPSHOT, E.ACTIVITY_DELTA, E.REASONING_ENCRYPTED_VALUE, E.SUBAGENT_STARTED];
    if (t === E.RUN_FINISHED || t === E.RUN_ERROR || t === E.MESSAGES_SNAPSHOT) {
      for (const o of [...lanes.keys()]) closeLane(o);
    } else if (!chunkKinds.includes(t) && !laneClosers.includes(t)) {
      closeLane(ev.subagentRunId);
    }
    const need = (set, id, what) => { if (!set.has(id)) fail(idx, `no open ${what} ${id}`); };
    const fresh = (set, id, what) => { if (set.has(id)) fail(idx, `${what} ${id} already open`); set.add(id); };
    switch (t) {
      case E.TEXT_MESSAGE_START: fresh(msgs, ev.messageId, "message"); break;
      case E.TEXT_MESSAGE_CONTENT: need(msgs, ev.messageId, "message"); break;
      case E.TEXT_MESSAGE_END: need(msgs, ev.messageId, "message"); msgs.delete(ev.messageId); break;
      case E.TOOL_CALL_START: fresh(tools, ev.toolCallId, "tool call"); break;
      case E.TOOL_CALL_ARGS: need(tools, ev.toolCallId, "tool call"); break;
      case E.TOOL_CALL_END: need(tools, ev.toolCallId, "tool call"); tools.delete(ev.toolCallId); break;
      case E.REASONING_START: fresh(spans, ev.messageId, "reasoning span"); break;
      case E.REASONING_END: need(spans, ev.messageId, "reasoning span"); spans.delete(ev.messageId); break;
      case E.REASONING_MESSAGE_START: fresh(rmsgs, ev.messageId, "reasoning message"); break;
      case E.REASONING_MESSAGE_CONTENT: need(rmsgs, ev.messageId, "reasoning message"); break;
      case E.REASONING_MESSAGE_END: need(rmsgs, ev.messageId, "reasoning message"); rmsgs.delete(ev.messageId); break;
      case E.TEXT_MESSAGE_CHUNK: chunk(ev, "text", "messageId", msgs); break;
      case E.TOOL_CALL_CHUNK: chunk(ev, "tool", "toolCallId", tools); break;
      case E.REASONING_MESSAGE_CHUNK: chunk(ev, "reasoning", "messageId", rmsgs); break;
      case E.STEP_STARTED: fresh(steps, `${ev.subagentRunId ?? ""}\u0000${ev.stepName}`, "step"); break;
      case E.STEP_FINISHED: {
        const k = `${ev.subagentRunId ?? ""}\u0000${ev.stepName}`;
        need(steps, k, "step"); steps.delete(k); break;
      }
      case E.SUBAGENT_STARTED:
        if (closedSubs.has(ev.subagentRunId)) fail(idx, "subagent id reused");
        if (ev.parentSubagentRunId !== undefined && !subs.has(ev.parentSubagentRunId) && !closedSubs.has(ev.parentSubagentRunId)) {
          fail(idx, "unknown parentSubagentRunId");
        }
        fresh(subs, ev.subagentRunId, "subagent"); break;
      case E.SUBAGENT_FINISHED:
      case E.SUBAGENT_ERROR:
        need(subs, ev.subagentRunId, "subagent"); subs.delete(ev.subagentRunId); closedSubs.add(ev.subagentRunId); break;
      case E.RUN_FINISHED:
        for (const [what, set] of [["message", msgs], ["tool call", tools], ["reasoning span", spans], ["reasoning message", rmsgs], ["step", steps], ["subagent", subs]]) {
          if (set.size) fail(idx, `RUN_FINISHED with open ${what}(s): ${[...set].join(", ")}`);
        }
        ended = true; break;
      case E.RUN_ERROR: ended = true; break;
      default: break;
    }
  }
  if (!ended) throw new Error(`case ${name}: stream does not end with RUN_FINISHED/RUN_ERROR`);
}

// ---------------------------------------------------------------------------
// Minimal SSE splitter used to double-check the written bytes.
function splitSse(text) {
  if (!text.endsWith("\n\n")) throw new Error("SSE text does not end with a blank line");
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      const lines = frame.split("\n");
      if (lines.length !== 1 || !lines[0].startsWith("data: ")) {
        throw new Error(`unexpected SSE frame shape: ${JSON.stringify(frame.slice(0, 80))}`);
      }
      return JSON.parse(lines[0].slice("data: ".length));
    });
}

// ---------------------------------------------------------------------------
const encoder = new EventEncoder(); // no Accept header => SSE
const covered = new Set();
const written = [];
const typesPerCase = {};
mkdirSync(outDir, { recursive: true });

// Remove stale case files so a renamed case does not linger.
for (const f of readdirSync(outDir)) {
  if (f.endsWith(".sse") || (f.endsWith(".json") && f !== "index.json")) unlinkSync(join(outDir, f));
}

for (const c of cases) {
  const events = c.events();
  events.forEach((ev, i) => {
    const r = EventSchema.safeParse(ev);
    if (!r.success) {
      throw new Error(`case ${c.name}: event #${i} (${ev.type}) fails the official schema:\n${r.error}`);
    }
    covered.add(ev.type);
  });
  checkOrdering(c.name, events);

  let sse = "";
  const wire = [];
  for (const ev of events) {
    const frame = encoder.encodeSSE(ev);
    // encode() is documented as the SSE path too; make sure they agree.
    if (encoder.encode(ev) !== frame) throw new Error("encode() and encodeSSE() differ");
    const prefix = "data: ";
    if (!frame.startsWith(prefix) || !frame.endsWith("\n\n")) throw new Error(`unexpected frame ${frame}`);
    wire.push(JSON.parse(frame.slice(prefix.length, -2)));
    sse += frame;
  }
  const reparsed = splitSse(sse);
  if (!isDeepStrictEqual(reparsed, wire)) throw new Error(`case ${c.name}: splitter disagrees with encoder`);
  // Also re-validate what actually went on the wire.
  wire.forEach((w, i) => {
    const r = EventSchema.safeParse(w);
    if (!r.success) throw new Error(`case ${c.name}: wire event #${i} fails schema: ${r.error}`);
  });

  writeFileSync(join(outDir, `${c.name}.sse`), sse);
  writeFileSync(join(outDir, `${c.name}.json`), JSON.stringify(wire, null, 2) + "\n");
  typesPerCase[c.name] = [...new Set(events.map((e) => e.type))];
  written.push(c.name);
}

const missing = Object.values(EventType).filter((t) => !covered.has(t));
if (missing.length) throw new Error(`event types not covered: ${missing.join(", ")}`);
if (Object.values(EventType).length !== 31) {
  throw new Error(`expected 31 event types in @ag-ui/core, found ${Object.values(EventType).length}`);
}

writeFileSync(join(outDir, "index.json"), JSON.stringify(written, null, 2) + "\n");

// ---------------------------------------------------------------------------
// Encoder behaviour probes (recorded in the README; not part of the corpus).
const probe = (ev) => encoder.encodeSSE(ev);
const observations = {
  frameFormat: probe({ type: E.RUN_STARTED, threadId: "t", runId: "r" }).replace(/\n/g, "\\n"),
  undefinedField: probe({ type: E.TEXT_MESSAGE_START, messageId: "m", role: "assistant", name: undefined }),
  optionalNullStripped: probe({ type: E.TEXT_MESSAGE_START, messageId: "m", role: null, name: null }),
  requiredNullKept: probe({ type: E.RAW, event: null, source: null }),
  nestedOptionalNullStripped: probe({
    type: E.MESSAGES_SNAPSHOT,
    messages: [{ id: "a", role: "assistant", content: null, name: null, toolCalls: [{ id: "x", type: "function", function: { name: "f", arguments: "" }, metadata: null }] }],
  }),
  nullInsideMetadataKept: probe({ type: E.CUSTOM, name: "n", value: { a: null }, metadata: { k: null } }),
  nonAscii: probe({ type: E.TEXT_MESSAGE_CONTENT, messageId: "m", delta: "é😀\u2028\u0000\n" }),
  contentType: encoder.getContentType(),
};

const table = cases
  .map((c) => `| \`${c.name}\` | ${typesPerCase[c.name].join(", ")} |`)
  .join("\n");

const readme = `# AG-UI 1.0 conformance corpus

**Generated, committed files — do not edit by hand.** Regenerate with

\`\`\`sh
npm ci
npm run conformance:generate   # node tests/conformance/generate.mjs
git diff --exit-code tests/fixtures/conformance   # must be clean: the generator is deterministic
\`\`\`

Produced by \`tests/conformance/generate.mjs\` with the official packages, pinned in
\`package.json\` / \`package-lock.json\`:

- \`@ag-ui/encoder\` ${versions.encoder} — \`new EventEncoder().encodeSSE(event)\` produces every byte of the \`.sse\` files
- \`@ag-ui/core\` ${versions.core} — every event is validated with the official zod \`EventSchema\`
  (\`@ag-ui/core/schemas\`) before encoding, and again after a JSON round trip of the wire form
- \`zod\` ${versions.zod} (peer of \`@ag-ui/core\`)

Ids and timestamps are fixed, so reruns are byte-identical.

## Files

- \`index.json\` — JSON array of case names, in generation order.
- \`<case>.sse\` — the exact concatenation of the encoder's SSE frames for the case's event sequence
  (UTF-8, \`data: <json>\\n\\n\` per event).
- \`<case>.json\` — the expected events: a JSON array whose element *i* is \`JSON.parse\` of frame *i*'s
  \`data\` (i.e. the wire JSON the encoder emitted, derived by encoding, then cross-checked by re-splitting
  the \`.sse\` file with a minimal splitter).

Every case is a valid stream under the AG-UI lifecycle rules (first event \`RUN_STARTED\`; every
\`*_START\` closed before \`RUN_FINISHED\`; steps and subagents closed; nothing after \`RUN_FINISHED\`/\`RUN_ERROR\`
except a new \`RUN_STARTED\`). Chunk events (\`*_CHUNK\`) are closed implicitly the way
\`@ag-ui/client\`'s \`transformChunks\` closes them (by the next non-chunk event of the same owner, a run
boundary, or a chunk with a different id). The generator checks this and fails otherwise; all 31 event
types are covered (the generator fails if one is missing).

## Cases

| case | event types |
|---|---|
${table}

## Observed encoder behaviour (@ag-ui/encoder ${versions.encoder})

- Frame format: exactly \`data: \` (with one space) + \`JSON.stringify(event)\` + \`\\n\\n\`. One \`data:\` line per
  event, no \`event:\`/\`id:\`/\`retry:\` fields, no comments, no trailing \`\\r\`. Example:
  \`${observations.frameFormat}\`
- \`encode(event)\` is identical to \`encodeSSE(event)\`; \`getContentType()\` is \`${observations.contentType}\` unless the
  Accept header prefers the protobuf media type.
- JSON is compact (no whitespace), keys appear in the object's insertion order (the generator always puts
  \`type\` first).
- Fields whose value is \`undefined\` disappear (JSON.stringify): \`${observations.undefinedField.trim()}\`
- Before stringifying, \`omitOptionalNulls(event, "Event")\` removes **optional** fields whose value is \`null\`,
  recursively along the known shapes (messages, tool calls, content parts, outcomes, interrupts, usage, RunAgentInput):
  \`${observations.optionalNullStripped.trim()}\` and \`${observations.nestedOptionalNullStripped.trim()}\`
- **Required** fields that are \`null\` are kept, and nothing inside opaque JSON (metadata values, state, custom
  values, rawEvent contents) is touched: \`${observations.requiredNullKept.trim()}\`, \`${observations.nullInsideMetadataKept.trim()}\`
- The encoder does not validate. Non-ASCII is written as raw UTF-8 (no \`\\uXXXX\`), including U+2028/U+2029;
  control characters are escaped (\`\\n\`, \`\\t\`, \`\\r\`, \`\\u0000\`...), so a frame never contains a raw newline:
  \`${observations.nonAscii.trim().replace(/\u2028/g, "<U+2028>")}\`
  (U+2028 shown as \`<U+2028>\`; it is a raw 3-byte UTF-8 sequence in the output).
`;
writeFileSync(join(outDir, "README.md"), readme);

console.log(`wrote ${written.length} cases to ${outDir}`);
for (const c of cases) console.log(`  ${c.name}: ${typesPerCase[c.name].join(", ")}`);
console.log("encoder observations:");
for (const [k, v] of Object.entries(observations)) console.log(`  ${k}: ${JSON.stringify(v)}`);
