// chat-runtime demo: a chat page on ChatRuntime, loaded with <script type="module"> and no bundler.
//
// - Threads: a list kept in localStorage (ids `thread-<timestamp>`), each thread's messages too;
//   a reload seeds them back into the runtime with `setMessages`.
// - Rendering: from the runtime's coalesced `messages` events, touching only the changed messages.
//   Everything the agent or a tool produced is written with `textContent`, never as HTML.
// - The tool selector of the seed's section 5: a "Tools" button in the input row with a panel
//   docked above it (frontend tools with a switch each, saved per thread; backend tools locked).
// - Human in the loop: the confirm_action tool dispatches `chat-runtime:confirm` on window (see
//   demo/tools-src/confirm.ts); this page claims it and shows Confirm / Cancel in the tool's card.
// - Interrupts: with `?approvals=interrupt` the runs ask the demo agent for its interrupt mode
//   (forwardedProps), where "Delete my notes" ends the run `interrupted`; an approval card
//   (showInterruptCard) answers the open interrupts and resumes the run.
// - Coder: with `?backend=coder` the same page runs on the Coder chat backend (the demo agent's
//   Coder mock at /api/v2/chats, same origin). A thread is a chat and its id the chat's id: the
//   first message of a new chat creates it (`run` without a threadId), and the page adopts the id
//   the turn runs under (see adoptNewChat). Its threads are kept apart from the AG-UI ones. The
//   runtime is in cookie mode (no sessionToken): `make demo` signs the page in by cookie and puts
//   Coder's CSRF token in its <meta property="csrf-token">, which the runtime sends on every POST.
//   It loads the package's Coder build (`chat-runtime/coder`); the AG-UI page loads the AG-UI build.
import { createInspector } from "/inspector.js";

const params = new URLSearchParams(location.search);
/** `?backend=coder`: the Coder chat backend instead of AG-UI. */
const CODER = params.get("backend") === "coder";
// The package's two builds: `chat-runtime` (AG-UI only) and `chat-runtime/coder` (both backends).
const { default: init, ChatRuntime } = await import(CODER ? "/pkg/coder/chat_runtime.js" : "/pkg/chat_runtime.js");
/** The organization the demo's Coder chats are created in (the mock takes any non-nil UUID). */
const CODER_ORGANIZATION_ID = "0de00000-0000-4000-8000-000000000001";

const PREFIX = CODER ? "chat-runtime-demo-coder" : "chat-runtime-demo";
const KEYS = {
  threads: `${PREFIX}:threads`,
  current: `${PREFIX}:current`,
  messages: (threadId) => `${PREFIX}:messages:${threadId}`,
};

const $ = (id) => document.getElementById(id);
const ui = {
  threads: $("threads"),
  newChat: $("new-chat"),
  title: $("chat-title"),
  messages: $("messages"),
  runStatus: $("run-status"),
  composer: $("composer"),
  input: $("input"),
  send: $("send"),
  stop: $("stop"),
  tools: $("tools"),
  toolsButton: $("tools-button"),
  toolsPanel: $("tools-panel"),
  badge: $("tools-badge"),
  badgeLabel: $("tools-badge-label"),
  frontendTools: $("frontend-tools"),
  backendTools: $("backend-tools"),
  backendSection: $("backend-tools-section"),
};

/** Creates an element with a class and (plain) text. */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function icon(templateId) {
  return $(templateId).content.firstElementChild.cloneNode(true);
}

// ---- storage ----------------------------------------------------------------------------------

function readJson(key, fallback) {
  try {
    const text = localStorage.getItem(key);
    return text === null ? fallback : JSON.parse(text);
  } catch {
    return fallback;
  }
}

function writeJson(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch (error) {
    console.warn("chat-runtime demo: could not save", key, error);
  }
}

/** @type {{ id: string, title: string, createdAt: number }[]} */
let threads = readJson(KEYS.threads, []).filter((t) => t && typeof t.id === "string");
/** The open thread; `null` is a new chat that has no thread yet. */
let current = null;

function saveThreads() {
  writeJson(KEYS.threads, threads);
}

const saveTimers = new Map();
/** Saves a thread's messages soon (coalesces the many `messages` events of a streaming run). */
function saveMessagesSoon(threadId) {
  if (saveTimers.has(threadId)) return;
  saveTimers.set(threadId, setTimeout(() => saveMessages(threadId), 250));
}
function saveMessages(threadId) {
  clearTimeout(saveTimers.get(threadId));
  saveTimers.delete(threadId);
  writeJson(KEYS.messages(threadId), rt.messages(threadId));
}

// ---- runtime ----------------------------------------------------------------------------------

await init();
// The workshop inspector (demo/inspector.js): sees each request body through prepareRequest (it
// returns it unchanged) and the run through subscribe.
const inspector = createInspector({ root: $("inspector"), toggle: $("inspector-toggle") });
const rt = new ChatRuntime(
  CODER
    ? { backend: { type: "coder", baseUrl: "/api/v2", organizationId: CODER_ORGANIZATION_ID }, toolsUrl: "/tools/tools.json" }
    : { runUrl: "/api/threads/{threadId}/runs", toolsUrl: "/tools/tools.json", prepareRequest: inspector.prepareRequest },
);
inspector.attach(rt);
window.chatRuntimeDemo = { runtime: rt };

/**
 * Coder: the new chat being created by its first turn, `{ id, title }` (`id`: the thread its
 * events arrived under so far, `null` before the first one), else `null`.
 */
let newChat = null;
/** Threads with a run going on. */
const running = new Set();
/** How each thread's last run ended (shown under the conversation). */
const lastResult = new Map();
/** Confirmations waiting for the user, by toolCallId (see the confirm hook below). */
const confirmations = new Map();
/** Frontend tool calls the browser is executing right now, by toolCallId. */
const executing = new Set();
/** The rendered thread: message elements by id, tool cards by toolCallId, tool results by toolCallId. */
let view = { threadId: null, messages: new Map(), cards: new Map(), results: new Map() };
/** The tool selector's rows as last built (names, sources, descriptions). */
let renderedTools = "";
/** Makes the ids of the tool rows' name and description unique. */
let rowCount = 0;

for (const thread of threads) {
  const messages = readJson(KEYS.messages(thread.id), []);
  if (!Array.isArray(messages) || messages.length === 0) continue;
  try {
    rt.setMessages(thread.id, messages);
  } catch (error) {
    console.warn(`chat-runtime demo: could not restore ${thread.id}`, error);
  }
}
const saved = readJson(KEYS.current, null);
current = threads.some((t) => t.id === saved) ? saved : null;

rt.subscribe((event) => {
  if (newChat && event.threadId && !threads.some((t) => t.id === event.threadId)) adoptNewChat(event.threadId);
  switch (event.type) {
    case "messages":
      saveMessagesSoon(event.threadId);
      if (event.threadId !== current) break;
      // `replace`: the thread's list was replaced wholesale (a Coder chat's committed copies in
      // place of its streamed previews and the page's own user message, a snapshot).
      if (event.replace) replaceMessages(event.messages);
      else renderMessages(event.messages);
      break;
    case "toggles_changed":
    case "tools_changed":
      renderTools();
      break;
    case "tool_started":
      executing.add(event.toolCallId);
      if (event.threadId === current) refreshCard(event.toolCallId);
      break;
    case "tool_finished":
      executing.delete(event.toolCallId);
      if (event.threadId === current) refreshCard(event.toolCallId);
      break;
    case "diagnostic":
      console.warn("chat-runtime:", event.diagnostic.code, event.diagnostic.message);
      break;
  }
});

// The frontend tools (tools.json) and the agent's own tools (GET /api/agents), side by side.
const [catalog, agents] = await Promise.allSettled([
  rt.loadTools(),
  fetch("/api/agents").then((r) => (r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`)))),
]);
if (catalog.status === "rejected") console.warn("chat-runtime demo: no frontend tools:", catalog.reason);
if (agents.status === "fulfilled") {
  const tools = agents.value?.agents?.[0]?.capabilities?.tools;
  if (tools) rt.setBackendTools(tools);
} else {
  console.warn("chat-runtime demo: no backend tools:", agents.reason);
}

// ---- threads ----------------------------------------------------------------------------------

function renderThreadList() {
  const items = threads.map((thread) => {
    const li = el("li");
    const button = el("button");
    button.type = "button";
    button.dataset.threadId = thread.id;
    if (thread.id === current) button.setAttribute("aria-current", "true");
    if (running.has(thread.id)) {
      const dot = el("span", "thread-dot");
      dot.title = "running";
      button.append(dot);
    }
    button.append(el("span", "thread-title", thread.title || thread.id));
    button.addEventListener("click", () => openThread(thread.id));
    li.append(button);
    return li;
  });
  ui.threads.replaceChildren(...items);
}

function openThread(threadId) {
  current = threadId;
  writeJson(KEYS.current, current);
  closePanel(false);
  renderThreadList();
  renderThread();
  renderTools();
  renderComposer();
  ui.input.focus();
}

function newThreadId() {
  let id = `thread-${Date.now()}`;
  for (let n = 2; threads.some((t) => t.id === id); n++) id = `thread-${Date.now()}-${n}`;
  return id;
}

// ---- conversation -----------------------------------------------------------------------------


const SUGGESTIONS = [
  "What time is it?",
  "What's the weather in Paris?",
  "Calculate 2+3*4",
  "Switch to dark mode",
  "Delete my notes",
  "How do I search the docs?",
];

function renderThread() {
  inspector.show(current);
  view = { threadId: current, messages: new Map(), cards: new Map(), results: new Map() };
  ui.messages.replaceChildren();
  const thread = threads.find((t) => t.id === current);
  ui.title.textContent = thread ? thread.title : "New chat";
  const messages = current ? rt.messages(current) : [];
  if (messages.length === 0) {
    ui.messages.append(emptyState());
  } else {
    renderMessages(messages);
  }
  showInterruptCard(current);
  renderRunStatus();
  scrollToEnd(true);
}

function emptyState() {
  const box = el("div", "empty");
  box.append(
    el("h2", "", "Try the frontend tools"),
    el("p", "", "Open Tools to switch tools on for this chat, then ask. With a tool off, the agent tells you it can't."),
  );
  const list = el("div", "suggestions");
  for (const text of SUGGESTIONS) {
    const button = el("button", "", text);
    button.type = "button";
    button.addEventListener("click", () => {
      ui.input.value = text;
      ui.input.focus();
    });
    list.append(button);
  }
  box.append(list);
  return box;
}

/** Applies changed messages to the view: creates new elements, updates existing ones. */
function renderMessages(messages) {
  const stick = nearEnd();
  ui.messages.querySelector(":scope > .empty")?.remove();
  for (const message of messages) {
    if (message.role === "tool") {
      view.results.set(message.toolCallId, message);
      refreshCard(message.toolCallId);
    } else if (message.role === "user" || message.role === "assistant") {
      renderMessage(message);
    }
  }
  scrollToEnd(stick);
}

/**
 * The thread's whole list, replacing the shown one: a message it does not name goes (with its
 * cards), the others are rendered and put in its order.
 */
function replaceMessages(messages) {
  const keep = new Set(messages.map((message) => message.id));
  for (const [id, entry] of view.messages) {
    if (keep.has(id)) continue;
    for (const [callId, card] of view.cards) if (entry.root.contains(card.root)) view.cards.delete(callId);
    entry.root.remove();
    view.messages.delete(id);
  }
  renderMessages(messages);
  let previous = null;
  for (const message of messages) {
    const entry = view.messages.get(message.id);
    if (!entry) continue;
    if (previous && previous.nextElementSibling !== entry.root) previous.after(entry.root);
    previous = entry.root;
  }
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
  return "";
}

function renderMessage(message) {
  let entry = view.messages.get(message.id);
  if (!entry) {
    const root = el("div", `msg ${message.role}`);
    root.dataset.messageId = message.id;
    const bubble = el("div", "bubble");
    const calls = el("div", "calls");
    root.append(bubble, calls);
    ui.messages.append(root);
    entry = { root, bubble, calls };
    view.messages.set(message.id, entry);
  }
  const text = textOf(message.content);
  if (entry.bubble.textContent !== text) entry.bubble.textContent = text;
  for (const call of message.toolCalls ?? []) {
    let card = view.cards.get(call.id);
    if (!card) {
      card = createCard(call);
      view.cards.set(call.id, card);
      entry.calls.append(card.root);
    }
    card.call = call;
    refreshCard(call.id);
  }
}

function createCard(call) {
  const root = el("div", "tool-card");
  root.dataset.toolCallId = call.id;
  const head = el("div", "tool-head");
  const name = el("span", "name");
  const where = el("span", "tool-where");
  const pill = el("span", "status-pill");
  head.append(icon("icon-wrench"), name, where, pill);
  const argsBox = el("div", "tool-section");
  const args = el("pre");
  argsBox.append(el("div", "tool-label", "Arguments"), args);
  const resultBox = el("div", "tool-section result");
  const result = el("pre");
  resultBox.append(el("div", "tool-label", "Result"), result);
  resultBox.hidden = true;
  const confirmSlot = el("div");
  root.append(head, argsBox, confirmSlot, resultBox);
  return { root, name, where, pill, args, resultBox, result, confirmSlot, call };
}

/** Pretty-prints JSON text; text that is not (yet) JSON, e.g. arguments mid-stream, as is. */
function pretty(text) {
  if (text === "" || text === undefined) return "{}";
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return String(text);
  }
}

function sourceOf(toolName) {
  return rt.listTools(current).find((t) => t.name === toolName)?.source;
}

function refreshCard(toolCallId) {
  const card = view.cards.get(toolCallId);
  if (!card) return;
  const { call } = card;
  const toolName = call.function.name;
  card.name.textContent = toolName;
  const source = sourceOf(toolName);
  card.where.textContent = source === "frontend" ? "in your browser" : source === "backend" ? "on the agent" : "";
  const args = pretty(call.function.arguments);
  if (card.args.textContent !== args) card.args.textContent = args;

  const result = view.results.get(toolCallId);
  let status;
  let label;
  if (result) {
    status = result.error ? "error" : "done";
    label = status;
    card.resultBox.hidden = false;
    card.resultBox.classList.toggle("error", Boolean(result.error));
    card.resultBox.firstChild.textContent = result.error ? "Error" : "Result";
    const text = pretty(textOf(result.content));
    if (card.result.textContent !== text) card.result.textContent = text;
  } else {
    status = "running";
    label = confirmations.has(toolCallId)
      ? "waiting for you"
      : executing.has(toolCallId) ? "running in your browser" : "running";
    if (!running.has(view.threadId) && !executing.has(toolCallId)) {
      label = rt.interrupts(view.threadId).some((i) => i.toolCallId === toolCallId) ? "waiting for you" : "no result";
    }
  }
  card.root.dataset.status = status;
  card.pill.textContent = label;
  renderConfirm(card, toolCallId);
}

function renderConfirm(card, toolCallId) {
  const request = confirmations.get(toolCallId);
  if (!request) {
    card.confirmSlot.replaceChildren();
    return;
  }
  if (card.confirmSlot.firstChild) return;
  const box = el("div", "confirm");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "Confirmation needed");
  const yes = el("button", "primary confirm-yes", "Confirm");
  const no = el("button", "confirm-no", "Cancel");
  yes.type = no.type = "button";
  const answer = (confirmed) => {
    confirmations.delete(toolCallId);
    request.resolve(confirmed);
    refreshCard(toolCallId);
    ui.input.focus();
  };
  yes.addEventListener("click", () => answer(true));
  no.addEventListener("click", () => answer(false));
  const buttons = el("div", "confirm-buttons");
  buttons.append(yes, no);
  box.append(el("p", "confirm-title", "The assistant asks you to confirm:"), el("p", "confirm-action", request.action), buttons);
  card.confirmSlot.append(box);
  scrollToEnd(true);
  yes.focus({ preventScroll: true });
}

function nearEnd() {
  const m = ui.messages;
  return m.scrollHeight - m.scrollTop - m.clientHeight < 80;
}
function scrollToEnd(really) {
  if (really) ui.messages.scrollTop = ui.messages.scrollHeight;
}

// The confirm_action hook (demo/tools-src/confirm.ts documents it).
window.addEventListener("chat-runtime:confirm", (event) => {
  const request = event.detail;
  if (!request || typeof request.resolve !== "function" || typeof request.toolCallId !== "string") return;
  event.preventDefault(); // claimed: this page shows it
  confirmations.set(request.toolCallId, request);
  request.signal?.addEventListener(
    "abort",
    () => {
      confirmations.delete(request.toolCallId);
      if (request.threadId === view.threadId) refreshCard(request.toolCallId);
    },
    { once: true },
  );
  if (request.threadId === view.threadId) refreshCard(request.toolCallId);
});

// ---- running ----------------------------------------------------------------------------------

function renderRunStatus() {
  const result = current ? lastResult.get(current) : undefined;
  let status = "";
  let text = "";
  if ((current && running.has(current)) || (current === null && newChat)) {
    status = "running";
    text = "The agent is working…";
  } else if (result) {
    status = result.status;
    if (result.status === "aborted") text = "Stopped.";
    else if (result.status === "error") text = `Error: ${result.error?.message ?? "the run failed"}${result.error?.code ? ` (${result.error.code})` : ""}`;
    else if (result.status === "max_rounds") text = "Stopped: too many tool rounds in one turn.";
    else if (result.status === "interrupted") text = "The agent waits for your answer.";
  }
  ui.runStatus.dataset.status = status;
  ui.runStatus.textContent = text;
}

function renderComposer() {
  const busy = current === null ? newChat !== null : running.has(current);
  ui.send.hidden = busy;
  ui.stop.hidden = !busy;
}

async function send(text) {
  text = text.trim();
  if (!text || newChat) return;
  if (current === null && CODER) return createChat(text);
  if (current === null) {
    // The first message creates the thread; its toggles start as the new-chat defaults.
    const id = newThreadId();
    threads.unshift({ id, title: text.replace(/\s+/g, " ").slice(0, 60), createdAt: Date.now() });
    saveThreads();
    openThread(id);
  }
  const threadId = current;
  if (running.has(threadId)) return;
  // Open interrupts are answered on their card first (a run that leaves them is refused).
  if (rt.interrupts(threadId).length) return ui.messages.querySelector(".interrupt-approve")?.focus();
  const message = userMessage(text);
  ui.input.value = "";
  await runTurn(threadId, { threadId, messages: [message] });
}

function userMessage(text) {
  return { id: `user-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`, role: "user", content: text };
}

/**
 * Coder: a new chat's first turn (`run` without a threadId creates the chat). Its events arrive
 * under the id the turn runs under (provisional until the chat exists, then the chat's id): the
 * page adopts each as the thread (adoptNewChat), and the result's `threadId` is the chat's id.
 */
async function createChat(text) {
  newChat = { id: null, title: text.replace(/\s+/g, " ").slice(0, 60) };
  ui.input.value = "";
  renderComposer();
  renderRunStatus();
  let result;
  try {
    result = await rt.run({ messages: [userMessage(text)] });
  } catch (error) {
    result = { threadId: newChat.id, status: "error", error: { code: error?.code ?? "error", message: error?.message ?? String(error) } };
  }
  if (result.threadId) adoptNewChat(result.threadId);
  const threadId = newChat.id;
  newChat = null;
  if (threadId === null) {
    // Refused before the chat existed: nothing to keep; say why on the new chat's status line.
    ui.input.value = text;
    renderComposer();
    ui.runStatus.dataset.status = "error";
    ui.runStatus.textContent = `Error: ${result.error?.message ?? "the chat could not be created"}${result.error?.code ? ` (${result.error.code})` : ""}`;
    return;
  }
  endTurn(threadId, result);
}

/** Coder: the new chat's turn now runs under `id`: it becomes (or renames) the open thread. */
function adoptNewChat(id) {
  if (!newChat || newChat.id === id) return;
  const old = newChat.id;
  newChat.id = id;
  if (old === null) {
    threads.unshift({ id, title: newChat.title, createdAt: Date.now() });
  } else {
    const thread = threads.find((t) => t.id === old);
    if (thread) thread.id = id;
    running.delete(old);
    lastResult.delete(old);
    try {
      localStorage.removeItem(KEYS.messages(old));
    } catch {
      // Storage is best effort here.
    }
  }
  running.add(id);
  saveThreads();
  if (current === old) openThread(id);
  else renderThreadList();
}

/** One `run` with the page's bookkeeping (status line, composer, saved messages, approval card). */
async function runTurn(threadId, request) {
  running.add(threadId);
  lastResult.delete(threadId);
  renderComposer();
  renderRunStatus();
  renderThreadList();
  let result;
  try {
    result = await rt.run({ ...request, ...INTERRUPT_MODE });
  } catch (error) {
    result = { threadId, status: "error", error: { code: error?.code ?? "error", message: error?.message ?? String(error) } };
  }
  endTurn(threadId, result);
}

/** The end of a turn: status line, composer, saved messages, approval card. */
function endTurn(threadId, result) {
  running.delete(threadId);
  lastResult.set(threadId, result);
  saveMessages(threadId);
  renderThreadList();
  if (threadId === current) {
    for (const id of view.cards.keys()) refreshCard(id);
    showInterruptCard(threadId);
    renderRunStatus();
    renderComposer();
  }
}

// ---- interrupts (AG-UI 1.0): the approval card -------------------------------------------------

/** `?approvals=interrupt`: the demo agent asks through interrupts (its `forwardedProps` switch). */
const INTERRUPT_MODE = !CODER && params.get("approvals") === "interrupt" ? { forwardedProps: { approvals: "interrupt" } } : {};

/**
 * Shows the thread's open interrupts (`rt.interrupts`) as one card at the end of the conversation:
 * Approve / Reject answer every one of them (`resume`, payload `{ approved }`) and resume the run.
 */
function showInterruptCard(threadId) {
  ui.messages.querySelector(".interrupt-card")?.remove();
  const open = threadId && !running.has(threadId) ? rt.interrupts(threadId) : [];
  if (threadId !== current || open.length === 0) return;
  const box = el("div", "confirm interrupt-card");
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "Approval needed");
  box.append(el("p", "confirm-title", "The agent asks for your approval:"));
  for (const interrupt of open) box.append(el("p", "confirm-action", interrupt.message ?? interrupt.reason));
  const approve = el("button", "primary interrupt-approve", "Approve");
  const reject = el("button", "interrupt-reject", "Reject");
  approve.type = reject.type = "button";
  const answer = (approved) => {
    box.remove();
    const resume = open.map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved } }));
    runTurn(threadId, { threadId, messages: [], resume });
  };
  approve.addEventListener("click", () => answer(true));
  reject.addEventListener("click", () => answer(false));
  const buttons = el("div", "confirm-buttons");
  buttons.append(approve, reject);
  box.append(buttons);
  ui.messages.append(box);
  scrollToEnd(true);
  approve.focus({ preventScroll: true });
}

ui.composer.addEventListener("submit", (event) => {
  event.preventDefault();
  send(ui.input.value);
});
ui.input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    if (!(current && running.has(current))) send(ui.input.value);
  }
});
ui.stop.addEventListener("click", () => {
  if (current) rt.abort(current);
});
ui.newChat.addEventListener("click", () => {
  current = null;
  writeJson(KEYS.current, null);
  closePanel(false);
  renderThreadList();
  renderThread();
  renderTools();
  renderComposer();
  ui.input.focus();
});

// ---- tool selector ----------------------------------------------------------------------------

function renderTools() {
  const tools = rt.listTools(current);
  const frontend = tools.filter((t) => t.source === "frontend");
  const backend = tools.filter((t) => t.source === "backend");
  ui.tools.hidden = tools.length === 0;
  const active = frontend.filter((t) => t.enabled).length;
  ui.badge.hidden = active === 0;
  ui.badge.textContent = String(active);
  ui.badgeLabel.textContent = active === 0 ? "" : `, ${active} active`;

  // Rebuild the rows only when the tools themselves changed, so a focused switch keeps its focus.
  const shape = JSON.stringify(tools.map((t) => [t.name, t.source, t.description]));
  if (shape !== renderedTools) {
    renderedTools = shape;
    ui.frontendTools.replaceChildren(...(frontend.length ? frontend.map(frontendRow) : [el("li", "tool-empty", "No frontend tools (tools.json is empty or missing).")]));
    ui.backendTools.replaceChildren(...backend.map(backendRow));
    ui.backendSection.hidden = backend.length === 0;
  }
  for (const tool of frontend) {
    const input = ui.frontendTools.querySelector(`input[data-tool="${CSS.escape(tool.name)}"]`);
    if (input && input.checked !== tool.enabled) input.checked = tool.enabled;
  }
}

function toolText(tool) {
  const n = ++rowCount;
  const text = el("span", "tool-text");
  const name = el("span", "tool-name", tool.name);
  name.id = `tool-name-${n}`;
  const desc = el("span", "tool-desc", tool.description);
  desc.id = `tool-desc-${n}`;
  text.append(name, desc);
  return { text, nameId: name.id, descId: desc.id };
}

function frontendRow(tool) {
  const li = el("li");
  const row = el("label", "tool-row");
  const { text, nameId, descId } = toolText(tool);
  const input = el("input", "switch");
  input.type = "checkbox";
  input.setAttribute("role", "switch");
  input.dataset.tool = tool.name;
  input.checked = tool.enabled;
  input.setAttribute("aria-labelledby", nameId);
  input.setAttribute("aria-describedby", descId);
  input.addEventListener("change", () => {
    try {
      rt.setToolEnabled(current, tool.name, input.checked);
    } catch (error) {
      console.warn("chat-runtime demo:", error);
    }
    renderTools();
  });
  row.append(text, input);
  li.append(row);
  return li;
}

function backendRow(tool) {
  const li = el("li");
  const row = el("div", "tool-row locked");
  const { text } = toolText(tool);
  const lock = icon("icon-lock");
  lock.setAttribute("aria-label", "Always on (backend tool)");
  row.append(text, lock);
  li.append(row);
  return li;
}

function openPanel() {
  renderTools();
  ui.toolsPanel.hidden = false;
  ui.toolsButton.setAttribute("aria-expanded", "true");
  ui.toolsPanel.querySelector("input.switch")?.focus();
}

function closePanel(returnFocus) {
  if (ui.toolsPanel.hidden) return;
  ui.toolsPanel.hidden = true;
  ui.toolsButton.setAttribute("aria-expanded", "false");
  if (returnFocus) ui.toolsButton.focus();
}

ui.toolsButton.addEventListener("click", () => (ui.toolsPanel.hidden ? openPanel() : closePanel(false)));
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !ui.toolsPanel.hidden) {
    event.preventDefault();
    closePanel(true);
  }
});
document.addEventListener("pointerdown", (event) => {
  if (!ui.tools.contains(event.target)) closePanel(false);
});
ui.tools.addEventListener("focusout", (event) => {
  if (event.relatedTarget && !ui.tools.contains(event.relatedTarget)) closePanel(false);
});

// ---- start ------------------------------------------------------------------------------------

renderThreadList();
renderThread();
renderTools();
renderComposer();
document.body.dataset.ready = "true";
