// Tools that succeed: the clock of the pydantic-ai captures, echo, ctx recording, HITL steps.
import { countImport, log } from "./counter.js";

countImport(import.meta.url);

export function getBrowserTime(args) {
  log(`tool:get_browser_time:${args.format}`);
  return args.time ?? "2026-01-01T12:00:00Z";
}

export function echo(args) {
  log("tool:echo");
  globalThis.__echoCalls = (globalThis.__echoCalls ?? 0) + 1;
  return args;
}

export function recordCtx(args, ctx) {
  log("tool:record_ctx");
  (globalThis.__ctx ??= []).push({
    keys: Object.keys(ctx).sort(),
    toolCallId: ctx.toolCallId,
    toolName: ctx.toolName,
    threadId: ctx.threadId,
    runId: ctx.runId,
    signalIsAbortSignal: ctx.signal instanceof AbortSignal,
    signalAborted: ctx.signal.aborted,
  });
  return { recorded: true };
}

export function generateTaskSteps(args) {
  log("tool:generate_task_steps");
  globalThis.__steps = args.steps.length;
  return "approved";
}
