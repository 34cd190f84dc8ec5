// chat-runtime/react, a thread's store: its messages, whether it runs, its last result and error,
// and its runs (`useThread`'s `run` and `abort`).
import { ChatRuntimeError, type ChatRuntime, type Message, type MessageInput, type RunOptions, type RunRequest, type RunResult, type RuntimeEvent } from "./chat_runtime.js";
import { indexMessages, mergeMessages, reconcileMessages } from "./apply-messages.js";
import { asError, isRunning, newId, runError } from "./errors.js";
import { Store, type StoreHost } from "./store.js";

export interface ThreadSnapshot {
  /** The thread the store reads: its key, or once a Coder chat was created for that id, the chat's. */
  threadId: string | null;
  messages: readonly Message[];
  running: boolean;
  error: ChatRuntimeError | null;
  result: RunResult | null;
  ready: boolean;
}

/** What `run` of {@link useThread} takes: a user's text, messages, or a request without `threadId`. */
export type ThreadInput = string | NonNullable<RunRequest["messages"]> | Omit<RunRequest, "threadId">;

/** Options of `run` of {@link useThread}. */
export interface ThreadRunOptions extends RunOptions {
  /**
   * For a new chat (`useThread(null)` before its first run): the id of the thread to start;
   * default `crypto.randomUUID()`. Ignored when the handle already shows a thread. On a Coder
   * runtime it is the id the run goes by until the chat it creates has its own (the handle's
   * `threadId` then becomes the chat's).
   */
  threadId?: string;
}

export class ThreadStore extends Store<ThreadSnapshot> {
  protected snapshot: ThreadSnapshot;
  private index: Map<string, number>;
  /** Runs started through this store that have not settled. */
  private pending = 0;
  /** Runs waiting for the runtime: `abort()` aborts them (the runtime ends them `aborted`). */
  private readonly waiting = new Set<AbortController>();
  /**
   * `Date.now()` when the thread's stream last showed life (a run started, a round, an `activity`
   * event): outside the snapshot, so a stream's activity re-renders nothing by itself.
   */
  lastActivityAt = 0;
  /**
   * The thread's browser tool calls that are running (`tool_started` without its `tool_finished`):
   * while there is one the thread waits on the page (a tool, or a person answering an approval
   * card), not on the server, and its stream's silence is no stall.
   */
  toolsRunning = 0;
  /** Called on each `activity` (and round start, tool start and end): the hooks that wait for a stalled stream. */
  private readonly pulses = new Set<() => void>();
  /** Whether this store gave the thread a history (`useThread`'s `history`): at most once. */
  private seeded = false;
  /**
   * Whether a hook gave the thread a `history`: the app keeps the thread and can seed it again, so
   * the runtime forgets it once no hook reads it ({@link Host.forget}).
   */
  private owned = false;
  /**
   * Whether the id is a new chat's first one (`useThread(null)`'s first run): on a Coder runtime
   * its runs are sent with `newChat` (the runtime creates the chat) until `thread_created` gives
   * the store the chat's id. A run that failed before the chat existed leaves it set, so the next
   * one creates the chat; on AG-UI the id is the thread's, and the first send clears it.
   */
  startsChat = false;

  /**
   * `threadId`: the thread the store reads in the runtime, its `key` unless the key is the first id
   * of a Coder chat created from this provider (then the chat's; `thread_created` sets it too).
   */
  constructor(host: StoreHost, map: Map<string, ThreadStore>, key: string, public threadId: string = key) {
    super(host, map as Map<string, Store<ThreadSnapshot>>, key);
    const runtime = host.runtime;
    const messages = runtime ? this.read(runtime) : [];
    this.index = indexMessages(messages);
    this.snapshot = {
      threadId,
      messages,
      running: isRunning(runtime, threadId),
      error: null,
      result: null,
      ready: runtime !== null,
    };
  }

  protected override busy(): boolean {
    return this.pending > 0;
  }

  private read(runtime: ChatRuntime): readonly Message[] {
    try {
      return runtime.messages(this.threadId);
    } catch {
      // A freed runtime has no threads.
      return [];
    }
  }

  private set(patch: Partial<ThreadSnapshot>): void {
    const prev = this.snapshot;
    const next = { ...prev, ...patch };
    if (
      next.threadId === prev.threadId &&
      next.messages === prev.messages &&
      next.running === prev.running &&
      next.error === prev.error &&
      next.result === prev.result &&
      next.ready === prev.ready
    ) {
      return;
    }
    this.emit(next);
  }

  /** The whole thread (after a run: a `MESSAGES_SNAPSHOT` may have removed messages). */
  private resync(full: readonly Message[]): readonly Message[] {
    const messages = reconcileMessages(this.snapshot.messages, full);
    if (messages !== this.snapshot.messages) this.index = indexMessages(messages);
    return messages;
  }

  refresh(): void {
    const runtime = this.host.runtime;
    if (runtime === null) {
      this.set({ ready: false, running: this.pending > 0 && this.snapshot.running });
      return;
    }
    const running = isRunning(runtime, this.threadId) || (this.pending > 0 && this.snapshot.running);
    this.set({ ready: true, running, messages: this.resync(this.read(runtime)) });
  }

  /** Calls `listener` on each sign of life of the thread's stream; returns the unsubscribe. */
  readonly onActivity = (listener: () => void): (() => void) => {
    this.pulses.add(listener);
    return () => this.pulses.delete(listener);
  };

  private pulse(at: number): void {
    this.lastActivityAt = Math.max(this.lastActivityAt, at);
    for (const listener of [...this.pulses]) listener();
  }

  /**
   * Gives the runtime the thread's history (`useThread`'s `history`) once: only when the runtime
   * has no message of the thread and no run of it was started here (a run's own messages are not
   * loaded back from the app's copy). With `pending: "run"`, calls of its last assistant message
   * that have no result then run (`run({ messages: [], pending: "run" })`); by default the next
   * run settles them `INTERRUPTED`.
   */
  seed(history: readonly MessageInput[], pending: "settle" | "run"): void {
    this.owned = true;
    const runtime = this.host.runtime;
    if (runtime === null || this.seeded || this.pending > 0 || history.length === 0) return;
    try {
      if (runtime.isRunning(this.threadId) || runtime.messages(this.threadId).length > 0) return;
      this.seeded = true;
      runtime.setMessages(this.threadId, history);
    } catch (error) {
      this.set({ error: asError(error, "react/history") });
      return;
    }
    this.refresh();
    // What such a run would run is the core's to say (`pendingCalls`), not recomputed here.
    if (pending === "run" && runtime.pendingCalls(this.threadId).length > 0) {
      this.run({ messages: [], pending: "run" }).catch(() => {
        // Shown through `error`.
      });
    }
  }

  protected override dropped(): void {
    if (this.owned) this.host.forget(this);
  }

  /** The runtime forgot the thread: a later `useThread(id, { history })` seeds it again. */
  forgotten(): void {
    this.seeded = false;
  }

  protected override renderAgain(): void {
    this.emit({ ...this.snapshot });
  }

  /** One of the runtime's events about this store's thread (the host's `AdapterEvent`s). */
  handle(event: RuntimeEvent): void {
    if (event.type === "thread_created") {
      // The Coder chat created for this store's id has its own: the store reads the chat from now
      // on (the runtime moved the messages; its later events name the chat) and stays where it is
      // (the host finds it by either id). Its readers re-render with the new `threadId`.
      this.threadId = event.threadId;
      this.startsChat = false;
      this.set({ threadId: event.threadId });
    } else if (event.type === "activity") {
      this.pulse(event.at);
    } else if (event.type === "messages") {
      // `replace`: the list was replaced wholesale (a snapshot, a Coder chat's committed copies
      // in place of its previews): what the event does not name is gone.
      const messages = event.replace
        ? this.resync(event.messages)
        : mergeMessages(this.snapshot.messages, event.messages, this.index);
      if (messages !== this.snapshot.messages) this.set({ messages });
    } else if (event.type === "round_started") {
      this.pulse(Date.now());
      if (!this.snapshot.running) this.set({ running: true });
    } else if (event.type === "tool_started") {
      this.toolsRunning++;
      this.pulse(Date.now());
    } else if (event.type === "tool_finished") {
      // The silence counts again from now: the answer goes to the server.
      this.toolsRunning = Math.max(0, this.toolsRunning - 1);
      this.pulse(Date.now());
    } else if (event.type === "run_finished") {
      this.toolsRunning = 0;
      const patch: Partial<ThreadSnapshot> = { running: false };
      // A run this store did not start (the app called `runtime.run`): its messages are read back
      // and its error shows too. Our own runs do both from the result (which carries the `cause`).
      const runtime = this.host.runtime;
      if (this.pending === 0) {
        if (runtime) patch.messages = this.resync(this.read(runtime));
        patch.error = event.error ? runError(event.error) : null;
      }
      this.set(patch);
    }
  }

  /** The runtime recovered from a failed start: an error that start gave the thread goes. */
  clearError(error: ChatRuntimeError): void {
    if (this.snapshot.error === error) this.set({ error: null });
  }

  readonly run = (input: ThreadInput, options?: ThreadRunOptions): Promise<RunResult> => {
    let request: RunRequest;
    if (typeof input === "string") {
      request = { threadId: this.threadId, messages: [{ id: newId(), role: "user", content: input }] };
    } else if (Array.isArray(input)) {
      request = { threadId: this.threadId, messages: input };
    } else {
      request = { ...(input as Omit<RunRequest, "threadId">), threadId: this.threadId };
    }
    const runOptions: RunOptions = {};
    if (options?.signal !== undefined) runOptions.signal = options.signal;

    this.pending++;
    this.seeded = true;
    this.pulse(Date.now());
    if (!this.snapshot.running) this.set({ running: true, error: null });
    else if (this.snapshot.error !== null) this.set({ error: null });

    let started: Promise<RunResult>;
    const runtime = this.host.runtime;
    if (runtime !== null && this.host.catalogSettled) {
      started = this.send(runtime, request, runOptions);
    } else {
      // Before the runtime exists (or while tools.json loads): wait, then send. `abort()` meanwhile
      // aborts the signal it will be sent with, so the runtime ends the run `aborted` at once.
      const controller = new AbortController();
      const signal = runOptions.signal;
      if (signal) {
        if (signal.aborted) controller.abort(signal.reason);
        else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
      }
      this.waiting.add(controller);
      started = this.host.ready().then(
        (rt) => {
          this.waiting.delete(controller);
          return this.send(rt, request, { ...runOptions, signal: controller.signal });
        },
        (error: unknown) => {
          this.waiting.delete(controller);
          throw asError(error, "react/start-failed");
        },
      );
    }
    return started.then(
      (result) => {
        this.pending--;
        this.dropIfIdle();
        const running = isRunning(this.host.runtime, this.threadId);
        this.set({
          running,
          result,
          error: result.error ? runError(result.error) : null,
          messages: this.resync(result.messages),
        });
        return result;
      },
      (thrown: unknown) => {
        this.pending--;
        this.dropIfIdle();
        const error = asError(thrown, "react/run-failed");
        // `run/busy`: another run of this thread is going on; it keeps `running`.
        const running = isRunning(this.host.runtime, this.threadId);
        this.set({ running, error });
        throw error;
      },
    );
  };

  /** A run of this store settled: with no hook reading it, the store goes a task later. */
  private dropIfIdle(): void {
    if (this.pending === 0 && this.listeners.size === 0) setTimeout(() => this.dropIfUnread(), 0);
  }

  private send(runtime: ChatRuntime, request: RunRequest, options: RunOptions): Promise<RunResult> {
    // The id now: a run that waited for the runtime goes to the chat a run before it created.
    request = { ...request, threadId: this.threadId };
    if (this.startsChat) {
      // Known only now: the runtime may not have existed when `run` was called.
      if (runtime.backend === "coder") request.newChat = true;
      else this.startsChat = false;
    }
    try {
      return runtime.run(request, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  readonly abort = (): void => {
    for (const controller of this.waiting) controller.abort(new ChatRuntimeError("run/aborted", "the run was stopped"));
    try {
      this.host.runtime?.abort(this.threadId);
    } catch {
      // A freed runtime runs nothing (its runs ended `aborted` when it was freed).
    }
  };
}
