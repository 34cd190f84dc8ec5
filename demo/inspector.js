// The workshop inspector: a panel beside the chat that shows each turn of the open chat as a
// timeline, live. Built only on ChatRuntime's public API, so it is also an example of a
// devtools-style consumer:
//
// - `rt.subscribe(listener, { events: [...] })` with `agui` (each AG-UI event as it arrived, with its
//   runId), `round_started`, `tool_started`, `tool_finished`, `run_finished`, `toggles_changed`;
// - the `prepareRequest(body, { threadId, round })` option, which sees the exact body of every
//   request (tools offered, messages sent, `resume`) and returns it unchanged;
// - `rt.listTools(threadId)` for the toggles at the time.
//
// Everything shown comes from the agent, the model, the tools or the user, so every string is
// written with `textContent` (never as HTML). The model is kept per thread; the DOM is built once per
// entry and updated in place (at most once per animation frame), so focus and open/closed state
// survive live updates.
//
// Wiring (demo/app.js): `const inspector = createInspector({ root, toggle })`,
// `new ChatRuntime({ ..., prepareRequest: inspector.prepareRequest })`, `inspector.attach(rt)`,
// and `inspector.show(threadId)` whenever the page opens a chat.

/** The panel sits beside the chat from this width on, and starts open there; below, it is a drawer. */
const WIDE = "(min-width: 1000px)";

/** The runtime events the inspector asks for (`agui` is opt-in: one event per streamed token). */
const EVENTS = ["agui", "round_started", "tool_started", "tool_finished", "run_finished", "toggles_changed"];

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

const now = () => performance.now();
const ms = (from, to) => (from === undefined || to === undefined ? "" : `${Math.max(0, Math.round(to - from))} ms`);

/** JSON text pretty-printed; anything else (arguments mid-stream, plain text) as it is. */
function pretty(value) {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The text of a message's content (a string or content parts). */
function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p && p.type === "text" ? p.text : `[${p?.type ?? "?"}]`)).join("\n");
  if (content === undefined || content === null) return "";
  return pretty(content);
}

/** One line per message of a request body. */
function describeMessage(m) {
  const role = String(m?.role ?? "?");
  let text = contentText(m?.content);
  if (role === "assistant" && Array.isArray(m.toolCalls) && m.toolCalls.length) {
    const calls = m.toolCalls.map((c) => `${c?.function?.name ?? "?"}(${c?.function?.arguments ?? ""})`).join(", ");
    text = text ? `${text}\ncalls ${calls}` : `calls ${calls}`;
  }
  if (role === "tool") text = `${m.error ? "error " : "result "}for ${m.toolCallId}: ${text}`;
  return { id: String(m?.id ?? ""), role, text };
}

export function createInspector({ root, toggle }) {
  const body = root.querySelector(".insp-body");
  const close = root.querySelector(".insp-close");
  const wide = window.matchMedia(WIDE);
  let rt = null;
  /** threadId -> the thread's timeline. */
  const threads = new Map();
  /** The thread on screen (`null`: a new chat). */
  let shown = null;
  let frame = 0;

  // ---- the model ------------------------------------------------------------------------------

  function thread(threadId) {
    let t = threads.get(threadId);
    if (!t) {
      t = {
        id: threadId, items: [], turns: 0, current: null, rounds: new Map(), pending: new Map(), toggles: null,
        sent: new Set(), names: new Map(), view: null,
      };
      threads.set(threadId, t);
    }
    return t;
  }

  /** The frontend tools of the thread and whether each is on now (backend tools are always on). */
  function toggles(threadId) {
    try {
      return rt.listTools(threadId).filter((tool) => tool.source === "frontend").map(({ name, enabled }) => ({ name, enabled }));
    } catch {
      return [];
    }
  }

  function roundStarted({ threadId, runId, round }) {
    const t = thread(threadId);
    let turn = t.current;
    if (round === 1 || !turn) {
      for (const item of t.items) if (item.kind === "turn") collapse(item);
      turn = { kind: "turn", n: ++t.turns, threadId, rounds: [], items: [], calls: new Map(), startedAt: now(), open: true };
      t.items.push(turn);
      t.current = turn;
    }
    const r = {
      kind: "round", n: round, runId, turn, startedAt: now(), toggles: toggles(threadId), request: null,
      events: [], total: 0, calls: [], because: [], open: true,
    };
    t.toggles = r.toggles;
    t.rounds.set(runId, r);
    turn.rounds.push(r);
    turn.items.push(r);
    const early = t.pending.get(round);
    if (early) {
      t.pending.delete(round);
      request(t, r, early);
    }
  }

  /** The body of a round's request, as `prepareRequest` got it. */
  function request(t, r, req) {
    const messages = Array.isArray(req.messages) ? req.messages : [];
    r.request = {
      tools: Array.isArray(req.tools) ? req.tools.map((tool) => String(tool?.name)) : [],
      messages: messages.map(describeMessage),
      fresh: new Set(messages.map((m) => String(m?.id)).filter((id) => !t.sent.has(id))),
      resume: Array.isArray(req.resume) ? req.resume : null,
    };
    for (const m of messages) t.sent.add(String(m?.id));
    // The tool results this request carries for calls of the turn's earlier rounds restarted it.
    for (const m of messages) {
      if (m?.role !== "tool") continue;
      const call = r.turn.calls.get(m.toolCallId);
      if (!call || call.round === r || call.by === "agent" || call.restarted) continue;
      call.restarted = r;
      r.because.push(call);
      if (call.by !== "browser") {
        // Answered by the runtime without running (off, unknown, interrupted): its message says why.
        call.by = "runtime";
        call.answer = { text: contentText(m.content), error: m.error };
      }
    }
  }

  /** Closes an earlier entry when a new one starts (the user reopens it at will). */
  function collapse(item) {
    item.open = false;
    if (item.box) item.box.open = false;
  }

  function call(r, toolCallId, name) {
    let c = r.turn.calls.get(toolCallId);
    if (!c) {
      // A call of an earlier turn (answered after a resume, say) keeps the name it had.
      const names = threads.get(r.turn.threadId)?.names;
      c = { id: toolCallId, name: name ?? names?.get(toolCallId) ?? "?", round: r, deltas: [], by: null, open: true };
      if (name) names?.set(toolCallId, name);
      r.turn.calls.set(toolCallId, c);
      r.calls.push(c);
    }
    return c;
  }

  function agui({ threadId, runId, event }) {
    const r = thread(threadId).rounds.get(runId);
    if (!r) return;
    const type = String(event?.type);
    r.total += 1;
    const last = r.events.at(-1);
    if (last && last.type === type) last.count += 1;
    else r.events.push({ type, count: 1 });
    switch (type) {
      case "TOOL_CALL_START": {
        const c = call(r, event.toolCallId, event.toolCallName);
        c.streamStart = now();
        break;
      }
      case "TOOL_CALL_ARGS":
        call(r, event.toolCallId).deltas.push(String(event.delta));
        break;
      case "TOOL_CALL_CHUNK": {
        const id = event.toolCallId ?? r.lastChunk;
        if (id === undefined) break;
        r.lastChunk = id;
        const c = call(r, id, event.toolCallName);
        c.streamStart ??= now();
        if (event.delta) c.deltas.push(String(event.delta));
        break;
      }
      case "TOOL_CALL_END":
        call(r, event.toolCallId).streamEnd = now();
        break;
      case "TOOL_CALL_RESULT": {
        const c = call(r, event.toolCallId);
        c.by = "agent";
        c.answeredAt = now();
        c.answer = { text: contentText(event.content) };
        break;
      }
      case "RUN_FINISHED":
        r.endedAt = now();
        if (event.outcome) r.outcome = event.outcome;
        break;
      case "RUN_ERROR":
        r.endedAt = now();
        r.error = { code: event.code, message: event.message };
        break;
    }
  }

  function roundOf(threadId, runId) {
    return threads.get(threadId)?.rounds.get(runId);
  }

  function toolStarted({ threadId, runId, toolCallId, toolName, args }) {
    const r = roundOf(threadId, runId);
    if (!r) return;
    const c = call(r, toolCallId, toolName);
    c.by = "browser";
    c.args = args;
    c.execStart = now();
  }

  function toolFinished({ threadId, runId, toolCallId, toolName, result, error }) {
    const r = roundOf(threadId, runId);
    if (!r) return;
    const c = call(r, toolCallId, toolName);
    c.by = "browser";
    c.execEnd = now();
    c.answer = error ? { error: error.code, text: error.message } : { value: result };
  }

  function runFinished({ threadId, status, rounds, error, interrupts }) {
    const t = threads.get(threadId);
    const turn = t?.current;
    if (!turn) return;
    const end = now();
    turn.endedAt = end;
    turn.status = status;
    turn.roundCount = rounds;
    turn.error = error;
    for (const r of turn.rounds) r.endedAt ??= end;
    if (Array.isArray(interrupts) && interrupts.length) {
      turn.items.push({ kind: "interrupts", interrupts });
      for (const i of interrupts) {
        const c = i?.toolCallId === undefined ? undefined : turn.calls.get(i.toolCallId);
        if (c) c.interrupt = i;
      }
    }
    t.current = null;
  }

  function togglesChanged({ threadId }) {
    if (threadId === null || threadId === undefined) return;
    const t = thread(threadId);
    const next = toggles(threadId);
    if (t.toggles) {
      const before = new Map(t.toggles.map((x) => [x.name, x.enabled]));
      const changes = next.filter((x) => before.get(x.name) !== x.enabled);
      if (changes.length) (t.current ? t.current.items : t.items).push({ kind: "toggles", changes });
    }
    t.toggles = next;
  }

  function onEvent(event) {
    switch (event.type) {
      case "round_started": roundStarted(event); break;
      case "agui": agui(event); break;
      case "tool_started": toolStarted(event); break;
      case "tool_finished": toolFinished(event); break;
      case "run_finished": runFinished(event); break;
      case "toggles_changed": togglesChanged(event); break;
      default: return;
    }
    if (event.threadId === shown) schedule();
  }

  /** The `prepareRequest` option: records the body and returns it unchanged. */
  function prepareRequest(req, info) {
    try {
      const t = thread(info.threadId);
      const r = t.rounds.get(req.runId) ?? t.current?.rounds.find((x) => x.n === info.round && !x.request);
      if (r) request(t, r, req);
      else t.pending.set(info.round, req);
      if (info.threadId === shown) schedule();
    } catch (error) {
      console.warn("chat-runtime inspector:", error);
    }
    return req;
  }

  // ---- the view ---------------------------------------------------------------------------------

  function schedule() {
    if (!frame) frame = requestAnimationFrame(render);
  }

  /** A `<details>` whose open state is the model's (the user's choice wins once made). */
  function details(model, className) {
    const node = el("details", className);
    node.open = model.open;
    model.box = node;
    node.addEventListener("toggle", () => (model.open = node.open));
    const summary = el("summary");
    node.append(summary);
    return { node, summary };
  }

  /** A row of a `<dl>` (hidden while empty); its `<dd>`. */
  function field(dl, label, name) {
    const row = el("div", "insp-field");
    row.dataset.field = name;
    const dd = el("dd");
    row.append(el("dt", "", label), dd);
    row.hidden = true;
    dl.append(row);
    return dd;
  }

  function show(dd, on) {
    dd.parentElement.hidden = !on;
  }

  function render() {
    frame = 0;
    if (shown === null || !threads.get(shown)?.items.length) {
      if (!body.querySelector(":scope > .insp-empty")) {
        body.replaceChildren(el("p", "insp-empty", "Send a message: each turn of this chat shows here as it happens."));
      }
      return;
    }
    const t = threads.get(shown);
    if (!t.view) t.view = { list: el("ol", "insp-timeline"), count: 0 };
    if (body.firstChild !== t.view.list) body.replaceChildren(t.view.list);
    renderItems(t.items, t.view);
  }

  /** Appends the new items of an append-only list, then updates them all. */
  function renderItems(items, view) {
    for (; view.count < items.length; view.count++) view.list.append(build(items[view.count]));
    for (const item of items) update(item);
  }

  function build(item) {
    const li = el("li", `insp-${item.kind}`);
    item.li = li;
    if (item.kind === "turn") {
      const { node, summary } = details(item, "insp-turn-box");
      item.summary = summary;
      item.steps = { list: el("ol", "insp-steps"), count: 0 };
      item.statusLine = el("p", "insp-status");
      node.append(item.steps.list, item.statusLine);
      li.dataset.turn = String(item.n);
      li.append(node);
    } else if (item.kind === "round") {
      buildRound(item, li);
    } else if (item.kind === "toggles") {
      li.append(el("span", "insp-tag", "toggles changed"), " ", item.changes.map((x) => `${x.name} ${x.enabled ? "on" : "off"}`).join(", "));
    } else if (item.kind === "interrupts") {
      li.append(el("span", "insp-tag", "interrupted"));
      const list = el("ul", "insp-interrupt-list");
      for (const i of item.interrupts) list.append(interruptItem(i));
      li.append(list);
    }
    return li;
  }

  function interruptItem(i) {
    const parts = [`${i?.id}: ${i?.reason}`];
    if (i?.message) parts.push(`"${i.message}"`);
    if (i?.toolCallId) parts.push(`call ${i.toolCallId}`);
    if (i?.expiresAt) parts.push(`expires ${i.expiresAt}`);
    return el("li", "", parts.join(" · "));
  }

  function update(item) {
    if (item.kind === "turn") updateTurn(item);
    else if (item.kind === "round") updateRound(item);
  }

  function updateTurn(turn) {
    const first = turn.rounds[0];
    const asked = first?.request?.messages.filter((m) => m.role === "user").at(-1)?.text;
    const status = turn.status ?? "running";
    const rounds = turn.roundCount ?? turn.rounds.length;
    const parts = [`Turn ${turn.n}`];
    if (asked) parts.push(`“${asked.length > 60 ? `${asked.slice(0, 59)}…` : asked}”`);
    parts.push(status, `${rounds} round${rounds === 1 ? "" : "s"}`);
    if (turn.endedAt !== undefined) parts.push(ms(turn.startedAt, turn.endedAt));
    setText(turn.summary, parts.join(" · "));
    turn.li.dataset.status = status;
    const error = turn.error ? `Error: ${turn.error.message}${turn.error.code ? ` (${turn.error.code})` : ""}` : "";
    setText(turn.statusLine, error);
    turn.statusLine.hidden = !error;
    renderItems(turn.items, turn.steps);
  }

  function buildRound(r, li) {
    li.dataset.round = String(r.n);
    const { node, summary } = details(r, "insp-round-box");
    r.summary = summary;
    const dl = el("dl", "insp-fields");
    r.f = {
      because: field(dl, "Restarted for", "because"),
      toggles: field(dl, "Toggles at the time", "toggles"),
      offered: field(dl, "Tools offered", "offered"),
      resume: field(dl, "Resume", "resume"),
      sent: field(dl, "Messages sent", "sent"),
      events: field(dl, "Events received", "events"),
      outcome: field(dl, "Outcome", "outcome"),
    };
    r.f.toggles.textContent = r.toggles.length ? r.toggles.map((x) => `${x.name} ${x.enabled ? "on" : "off"}`).join(", ") : "no frontend tools";
    show(r.f.toggles, true);
    r.eventList = { list: el("ol", "insp-events"), count: 0 };
    r.eventCount = el("summary");
    const eventBox = el("details", "insp-more");
    eventBox.append(r.eventCount, r.eventList.list);
    r.f.events.append(eventBox);
    show(r.f.events, true);
    r.callList = { list: el("ol", "insp-calls"), count: 0 };
    node.append(dl, r.callList.list);
    li.append(node);
  }

  function updateRound(r) {
    const parts = [`Round ${r.n}`, `${r.total} event${r.total === 1 ? "" : "s"}`];
    parts.push(r.endedAt === undefined ? "streaming" : ms(r.startedAt, r.endedAt));
    if (r.because.length) parts.push(`restarted for ${r.because.map((c) => c.name).join(", ")}`);
    setText(r.summary, parts.join(" · "));

    setText(r.f.because, r.because.map((c) => `${c.name} (${c.id})`).join(", "));
    show(r.f.because, r.because.length > 0);
    if (r.request && !r.built) {
      r.built = true;
      const { tools, messages, fresh, resume } = r.request;
      r.f.offered.textContent = tools.length ? tools.join(", ") : "none";
      show(r.f.offered, true);
      if (resume) {
        const list = el("ul", "insp-resume");
        for (const entry of resume) {
          const payload = entry?.payload === undefined ? "" : ` ${pretty(entry.payload)}`;
          list.append(el("li", "", `${entry?.interruptId}: ${entry?.status}${payload}`));
        }
        r.f.resume.append(list);
        show(r.f.resume, true);
      }
      const box = el("details", "insp-more");
      const newCount = messages.filter((m) => fresh.has(m.id)).length;
      box.append(el("summary", "", `${messages.length} message${messages.length === 1 ? "" : "s"}, ${newCount} new`));
      const list = el("ol", "insp-messages");
      for (const m of messages) {
        const li = el("li");
        li.dataset.role = m.role;
        if (fresh.has(m.id)) li.dataset.new = "true";
        li.append(el("span", "insp-tag", fresh.has(m.id) ? `${m.role} · new` : m.role), " ", el("span", "insp-text", m.text));
        list.append(li);
      }
      box.append(list);
      r.f.sent.append(box);
      show(r.f.sent, true);
    }
    setText(r.eventCount, `${r.total} event${r.total === 1 ? "" : "s"}`);
    for (; r.eventList.count < r.events.length; r.eventList.count++) {
      const group = r.events[r.eventList.count];
      group.li = el("li");
      r.eventList.list.append(group.li);
    }
    for (const group of r.events) setText(group.li, group.count > 1 ? `${group.type} ×${group.count}` : group.type);
    const outcome = r.error
      ? `RUN_ERROR: ${r.error.message}${r.error.code ? ` (${r.error.code})` : ""}`
      : r.outcome
        ? r.outcome.type === "interrupt"
          ? `interrupt: ${(r.outcome.interrupts ?? []).map((i) => `${i?.id} (${i?.reason})`).join(", ")}`
          : r.outcome.type
        : "";
    setText(r.f.outcome, outcome);
    show(r.f.outcome, outcome !== "");

    for (; r.callList.count < r.calls.length; r.callList.count++) r.callList.list.append(buildCall(r.calls[r.callList.count]));
    for (const c of r.calls) updateCall(c);
  }

  function buildCall(c) {
    const li = el("li", "insp-call");
    li.dataset.toolCallId = c.id;
    const { node, summary } = details(c, "insp-call-box");
    c.summary = summary;
    const dl = el("dl", "insp-fields");
    c.f = {
      id: field(dl, "Call", "id"),
      streamed: field(dl, "Arguments as streamed", "streamed"),
      args: field(dl, "Arguments", "args"),
      ran: field(dl, "Ran", "ran"),
      result: field(dl, "Result", "result"),
      restarted: field(dl, "Restarted", "restarted"),
    };
    c.f.id.textContent = c.id;
    show(c.f.id, true);
    c.pieces = el("span", "insp-pieces");
    c.f.streamed.append(c.pieces);
    c.argsPre = el("pre");
    c.f.args.append(c.argsPre);
    c.resultPre = el("pre");
    c.f.result.append(c.resultPre);
    c.shownPieces = 0;
    node.append(dl);
    li.append(node);
    c.li = li;
    return li;
  }

  function callStatus(c) {
    if (c.answer) return c.answer.error ? "error" : "done";
    if (c.interrupt) return "interrupted";
    if (c.execStart !== undefined) return "running";
    if (c.streamEnd !== undefined) return c.round.turn.endedAt === undefined ? "waiting" : "no result";
    return "streaming";
  }

  function updateCall(c) {
    const status = callStatus(c);
    c.li.dataset.status = status;
    const duration =
      c.by === "browser" ? ms(c.execStart, c.execEnd) : c.by === "agent" ? ms(c.streamStart, c.answeredAt) : "";
    setText(c.summary, [c.name, status, duration].filter(Boolean).join(" · "));

    for (; c.shownPieces < c.deltas.length; c.shownPieces++) c.pieces.append(el("code", "", c.deltas[c.shownPieces]));
    show(c.f.streamed, c.deltas.length > 0);
    const args = c.args !== undefined ? pretty(c.args) : pretty(c.deltas.join(""));
    setText(c.argsPre, args);
    show(c.f.args, args !== "");

    let ran = "";
    if (c.by === "browser") {
      ran = c.execEnd === undefined ? "in the browser, running" : `in the browser, ${ms(c.execStart, c.execEnd)}`;
    } else if (c.by === "agent") {
      ran = `on the agent, answered ${ms(c.streamStart, c.answeredAt)} after its start`;
    } else if (c.by === "runtime") {
      ran = "not run: answered by the runtime";
    }
    if (c.streamEnd !== undefined) ran = [`streamed in ${ms(c.streamStart, c.streamEnd)}`, ran].filter(Boolean).join("; ");
    if (c.interrupt) ran = [ran, `held by the server: interrupt ${c.interrupt.id} (${c.interrupt.reason})`].filter(Boolean).join("; ");
    setText(c.f.ran, ran);
    show(c.f.ran, ran !== "");

    if (c.answer) {
      const label = c.answer.error ? "Error" : "Result";
      setText(c.f.result.previousSibling, label);
      const text = "value" in c.answer ? pretty(c.answer.value) : c.answer.error ? `${c.answer.error}: ${c.answer.text}` : pretty(c.answer.text);
      setText(c.resultPre, text);
      c.f.result.parentElement.dataset.error = c.answer.error ? "true" : "false";
    }
    show(c.f.result, Boolean(c.answer));
    setText(c.f.restarted, c.restarted ? `round ${c.restarted.n}` : "");
    show(c.f.restarted, Boolean(c.restarted));
  }

  // ---- the panel --------------------------------------------------------------------------------

  function isOpen() {
    return !root.hidden;
  }

  function setOpen(open, { focus = false } = {}) {
    root.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    document.documentElement.dataset.inspector = open ? "open" : "closed";
    if (open) {
      render();
      // Over the chat (narrow screens) the panel takes the focus; beside it, the focus stays.
      if (focus && !wide.matches) close.focus();
    } else if (focus) {
      toggle.focus();
    }
  }

  toggle.addEventListener("click", () => setOpen(!isOpen(), { focus: true }));
  close.addEventListener("click", () => setOpen(false, { focus: true }));
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !wide.matches) {
      event.preventDefault();
      setOpen(false, { focus: true });
    }
  });
  setOpen(wide.matches);

  return {
    prepareRequest,
    /** Subscribes to the runtime's events. */
    attach(runtime) {
      rt = runtime;
      return rt.subscribe(onEvent, { events: EVENTS });
    },
    /** Shows the timeline of a chat (`null`: a new chat). */
    show(threadId) {
      shown = threadId;
      if (threadId !== null && rt) {
        const t = thread(threadId);
        t.toggles ??= toggles(threadId);
      }
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
      render();
    },
  };
}
