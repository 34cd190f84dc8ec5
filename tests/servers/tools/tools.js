// The frontend tools of the server suites. Every call is recorded in `globalThis.__calls`
// ({ name, toolCallId, args }) so a test can see that no call ran twice.
function record(name, args, ctx) {
  (globalThis.__calls ??= []).push({ name, toolCallId: ctx.toolCallId, args });
}

export function getTime(args, ctx) {
  record("get_time", args, ctx);
  return `12:00 in ${args.zone}`;
}

export function getWeather(args, ctx) {
  record("get_weather", args, ctx);
  return { city: args.city, sky: "sunny" };
}

export function fails(args, ctx) {
  record("fails", args, ctx);
  throw new Error(`the tool failed: ${args.reason}`);
}

/** Never answers: settles (rejects) only when the run is stopped. */
export function slow(args, ctx) {
  record("slow", args, ctx);
  return new Promise((_, reject) => {
    ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
  });
}
