/**
 * wasmbox for TypeScript: run untrusted Python and JavaScript in the wasmbox
 * sandbox. A WasmBox talks MCP to a wasmbox server, either one it starts
 * (`wasmbox mcp` over stdio, the default) or one already running (`wasmbox
 * serve`, by URL and bearer token); every method is one MCP tool call.
 *
 * What a run did is an ExecutionResult, never an exception: code that raised,
 * timed out or ran out of memory is a result with that status (see `ok` and
 * `throwIfError()`). Methods throw WasmBoxError only when the request itself
 * failed (no server, a session that does not exist, a bad argument), and an
 * AbortError when the caller's signal stopped it (the server cancels the run).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ChildProcess } from "node:child_process";

export type Language = "python" | "javascript";

export type Status = "ok" | "error" | "timeout" | "out_of_fuel" | "out_of_memory" | "crashed" | "cancelled" | "paused";

export interface WasmBoxOptions {
  /** A running `wasmbox serve`, e.g. "http://127.0.0.1:8080/mcp". Without it
   * the client starts `wasmbox mcp` itself and stops it on close(). */
  url?: string;
  /** The server's bearer token (--token), for url. */
  token?: string;
  /** The wasmbox program to start: default $WASMBOX_BIN, else "wasmbox" on PATH. */
  command?: string;
  /** More arguments after `wasmbox mcp`, e.g. ["--home", dir, "--max-timeout", "600"]. */
  args?: string[];
  /** Environment of the started server: the caller's, with these on top. */
  env?: Record<string, string>;
  /** Defaults of every run; a run's own options win. */
  language?: Language;
  timeoutSeconds?: number;
  memoryMb?: number;
  fuel?: number;
}

export interface RunOptions {
  language?: Language;
  /** Wall-clock limit (server default 30, at most its --max-timeout). */
  timeoutSeconds?: number;
  memoryMb?: number;
  /** Instruction budget: the run ends with status out_of_fuel past it. */
  fuel?: number;
  /** Text the program reads from standard input. */
  stdin?: string;
  /** Aborting it cancels the run on the server; the promise rejects. */
  signal?: AbortSignal;
}

export interface GuidanceEntry {
  /** A kind to match on: "timeout", "module_not_found", "no_network", ... */
  type: string;
  message: string;
  /** The section of docs/ about it, e.g. "docs/runtimes.md#python-packages". */
  docs: string;
}

export interface ExecutionError {
  type: string;
  message: string;
  traceback: string | null;
  guidance: string[];
  guidanceEntries: GuidanceEntry[];
}

export interface FuelAnalysis {
  consumed: number;
  budget: number;
  utilizationPercent: number;
  status: "efficient" | "moderate" | "warning" | "critical" | "exhausted";
  suggestedBudget: number | null;
  recommendation: string | null;
}

export interface Image {
  mimeType: string;
  data: Buffer;
}

/** The server's result object, with camelCase names; `raw` is it as sent. */
export class ExecutionResult {
  readonly status: Status;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  /** Bytes the program wrote, kept or not. */
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly exitCode: number;
  readonly error: ExecutionError | null;
  readonly durationMs: number;
  readonly fuelUsed: number;
  /** Present when the run had a fuel budget. */
  readonly fuelAnalysis: FuelAnalysis | null;
  readonly memoryPeakBytes: number;
  readonly sessionId: string | null;
  /** A failed session run left no trace: the session is as before it. */
  readonly sessionRolledBack: boolean;
  /** Paths under /app the run created, changed or removed. */
  readonly filesChanged: string[];
  /** Images the run wrote (png, jpeg, gif, webp, svg), as the server inlined them. */
  readonly images: Image[];
  readonly raw: Record<string, unknown>;

  constructor(raw: Record<string, unknown>, images: Image[] = []) {
    const r = raw as any;
    this.raw = raw;
    this.status = r.status;
    this.stdout = r.stdout ?? "";
    this.stderr = r.stderr ?? "";
    this.stdoutTruncated = !!r.stdout_truncated;
    this.stderrTruncated = !!r.stderr_truncated;
    this.stdoutBytes = r.stdout_bytes ?? this.stdout.length;
    this.stderrBytes = r.stderr_bytes ?? this.stderr.length;
    this.exitCode = r.exit_code ?? 0;
    this.error = r.error
      ? {
          type: r.error.type,
          message: r.error.message,
          traceback: r.error.traceback ?? null,
          guidance: r.error.guidance ?? [],
          guidanceEntries: r.error.guidance_entries ?? [],
        }
      : null;
    this.durationMs = r.duration_ms ?? 0;
    this.fuelUsed = r.fuel_used ?? 0;
    const f = r.fuel_analysis;
    this.fuelAnalysis = f
      ? {
          consumed: f.consumed,
          budget: f.budget,
          utilizationPercent: f.utilization_percent,
          status: f.status,
          suggestedBudget: f.suggested_budget ?? null,
          recommendation: f.recommendation ?? null,
        }
      : null;
    this.memoryPeakBytes = r.memory_peak_bytes ?? 0;
    this.sessionId = r.session_id ?? null;
    this.sessionRolledBack = !!r.session_rolled_back;
    this.filesChanged = r.files_changed ?? [];
    this.images = images;
  }

  /** The program ran to its end with exit code 0. */
  get ok(): boolean {
    return this.status === "ok";
  }

  /** Throws a RunFailedError unless ok; returns this, for chaining. */
  throwIfError(): this {
    if (!this.ok) throw new RunFailedError(this);
    return this;
  }
}

/** The request failed: no server, a bad argument, a session that does not exist. */
export class WasmBoxError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WasmBoxError";
  }
}

/** From ExecutionResult.throwIfError(): the run did not end ok. */
export class RunFailedError extends Error {
  readonly result: ExecutionResult;
  constructor(result: ExecutionResult) {
    const e = result.error;
    super(e ? `${result.status}: ${e.type}: ${e.message}` : `${result.status} (exit code ${result.exitCode})`);
    this.name = "RunFailedError";
    this.result = result;
  }
}

export interface FileEntry {
  path: string;
  type: "file" | "directory" | "symlink";
  size: number;
  mtime?: number;
}

export interface SessionInfo {
  sessionId: string;
  language: Language;
  created?: number;
  lastUsed?: number;
  ttlSeconds?: number;
  diskBytes?: number;
  checkpoints?: number;
}

type ToolContent = { type: string; text?: string; data?: string; mimeType?: string };

const asyncDispose: symbol = (Symbol as any).asyncDispose ?? Symbol.for("nodejs.asyncDispose");

export class WasmBox {
  private readonly opts: WasmBoxOptions;
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private stderrTail = "";
  private closed = false;
  /* the started server: node waits for it only while a request is pending,
   * so a program that never calls close() still ends when it is done */
  private child: ChildProcess | null = null;
  private pending = 0;

  constructor(options: WasmBoxOptions = {}) {
    if (options.url !== undefined) {
      try {
        new URL(options.url);
      } catch {
        throw new WasmBoxError(`url is not a URL: ${JSON.stringify(options.url)}`);
      }
      if (options.command !== undefined || options.args !== undefined)
        throw new WasmBoxError("give either url (a running server) or command/args (a server to start), not both");
    }
    this.opts = { ...options };
  }

  /** Run code once, in a fresh sandbox that keeps nothing. */
  async execute(code: string, options: RunOptions = {}): Promise<ExecutionResult> {
    return this.run(code, options, undefined);
  }

  /** A new session: variables, imports and /app files carry over from call to call. */
  async createSession(options: { language?: Language; ttlSeconds?: number } = {}): Promise<Session> {
    const args: Record<string, unknown> = {};
    const language = options.language ?? this.opts.language;
    if (language !== undefined) args.language = language;
    if (options.ttlSeconds !== undefined) args.ttl_seconds = options.ttlSeconds;
    const r = await this.call("create_session", args);
    return new Session(this, r.session_id, r.language);
  }

  /** A handle on an existing session (from listSessions() or another client). */
  session(id: string, language?: Language): Session {
    if (typeof id !== "string" || !id) throw new TypeError("session id must be a non-empty string");
    return new Session(this, id, language);
  }

  async listSessions(): Promise<SessionInfo[]> {
    const r = await this.call("list_sessions", {});
    return (r.sessions as any[]).map((s) => ({
      sessionId: s.session_id,
      language: s.language,
      created: s.created,
      lastUsed: s.last_used,
      ttlSeconds: s.ttl_seconds,
      diskBytes: s.disk_bytes,
      checkpoints: s.checkpoints,
    }));
  }

  /** The languages, versions and packages the server offers. */
  async listRuntimes(): Promise<Record<string, unknown>> {
    return this.call("list_runtimes", {});
  }

  /** The server's counters (get_metrics). */
  async metrics(): Promise<Record<string, unknown>> {
    return this.call("get_metrics", {});
  }

  /** Ends the connection, and the server when this client started it. */
  async close(): Promise<void> {
    this.closed = true;
    const c = this.client ?? (this.connecting ? await this.connecting.catch(() => null) : null);
    this.client = null;
    this.connecting = null;
    /* node waits for the server to end, as for a request */
    this.holdEventLoop(true);
    if (c) await c.close();
    this.child = null;
  }

  async [asyncDispose](): Promise<void> {
    await this.close();
  }

  /** @internal */
  async run(code: string, options: RunOptions, sessionId: string | undefined): Promise<ExecutionResult> {
    if (typeof code !== "string") throw new TypeError("code must be a string");
    const args: Record<string, unknown> = { code };
    const language = options.language ?? (sessionId === undefined ? this.opts.language : undefined);
    if (language !== undefined) args.language = language;
    if (sessionId !== undefined) args.session_id = sessionId;
    const timeout = options.timeoutSeconds ?? this.opts.timeoutSeconds;
    if (timeout !== undefined) args.timeout_seconds = timeout;
    const memory = options.memoryMb ?? this.opts.memoryMb;
    if (memory !== undefined) args.memory_mb = memory;
    const fuel = options.fuel ?? this.opts.fuel;
    if (fuel !== undefined) args.fuel = fuel;
    if (options.stdin !== undefined) args.stdin = options.stdin;
    /* the server ends the run at its timeout; wait that long and a margin */
    const waitMs = ((timeout ?? 300) + 30) * 1000;
    const res = await this.request("execute_code", args, { signal: options.signal, timeout: waitMs });
    const sc = res.structuredContent as Record<string, unknown> | undefined;
    if (!sc || typeof sc.status !== "string") throw new WasmBoxError(prefixed("execute_code", textOf(res.content)));
    const images: Image[] = [];
    for (const c of res.content as ToolContent[])
      if (c.type === "image" && c.data && c.mimeType)
        images.push({ mimeType: c.mimeType, data: Buffer.from(c.data, "base64") });
    return new ExecutionResult(sc, images);
  }

  /** @internal One tool call whose structured result is returned. */
  async call(name: string, args: Record<string, unknown>): Promise<any> {
    const res = await this.request(name, args, {});
    if (res.isError) throw new WasmBoxError(prefixed(name, textOf(res.content)));
    return res.structuredContent ?? JSON.parse(textOf(res.content));
  }

  private async request(
    name: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; timeout?: number },
  ): Promise<{ content: unknown; structuredContent?: unknown; isError?: boolean }> {
    if (this.pending++ === 0) this.holdEventLoop(true);
    try {
      const client = await this.connect();
      try {
        return (await client.callTool({ name, arguments: args }, undefined, {
          signal: options.signal,
          timeout: options.timeout ?? 120_000,
        })) as any;
      } catch (e: any) {
        if (options.signal?.aborted) throw options.signal.reason ?? e;
        throw new WasmBoxError(`${name}: ${e?.message ?? e}${this.serverSaid()}`, { cause: e });
      }
    } finally {
      if (--this.pending === 0) this.holdEventLoop(false);
    }
  }

  /* ref (a request is pending) or unref (idle) the started server's process
   * and its pipes; an idle server ends with node, when its stdin closes */
  private holdEventLoop(hold: boolean): void {
    const child = this.child;
    if (!child) return;
    if (hold) child.ref();
    else child.unref();
    for (const pipe of child.stdio) {
      const handle = pipe as { ref?: () => void; unref?: () => void } | null;
      if (hold) handle?.ref?.();
      else handle?.unref?.();
    }
  }

  private serverSaid(): string {
    const t = this.stderrTail.trim();
    return t ? ` (server: ${t.split("\n").slice(-3).join(" | ")})` : "";
  }

  private connect(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new WasmBoxError("this WasmBox is closed"));
    if (!this.connecting) {
      this.connecting = this.open().then(
        (c) => {
          this.client = c;
          return c;
        },
        (e) => {
          this.connecting = null;
          throw e;
        },
      );
    }
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const client = new Client({ name: "wasmbox-typescript", version: "0.1.0" });
    if (this.opts.url !== undefined) {
      const headers: Record<string, string> = {};
      if (this.opts.token) headers.Authorization = `Bearer ${this.opts.token}`;
      const transport = new StreamableHTTPClientTransport(new URL(this.opts.url), { requestInit: { headers } });
      try {
        await client.connect(transport);
      } catch (e: any) {
        throw new WasmBoxError(`cannot connect to ${this.opts.url}: ${e?.message ?? e}`, { cause: e });
      }
      return client;
    }
    const command = this.opts.command ?? process.env.WASMBOX_BIN ?? "wasmbox";
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, this.opts.env ?? {});
    const transport = new StdioClientTransport({
      command,
      args: ["mcp", ...(this.opts.args ?? [])],
      env,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-2000);
    });
    try {
      await client.connect(transport);
    } catch (e: any) {
      await transport.close().catch(() => undefined);
      throw new WasmBoxError(`cannot start ${command} mcp: ${e?.message ?? e}${this.serverSaid()}`, { cause: e });
    }
    /* the SDK does not expose its ChildProcess: its private field, checked
     * against the public pid (an SDK without it leaves node waiting for an
     * idle server, as before, and test/idle.test.mjs fails) */
    this.child = (transport as unknown as { _process?: ChildProcess })._process ?? null;
    if (this.child?.pid !== transport.pid) this.child = null;
    return client;
  }
}

/** State kept across calls: a Python or JavaScript interpreter and its /app. */
export class Session {
  constructor(
    private readonly box: WasmBox,
    readonly id: string,
    readonly language?: Language,
  ) {}

  /** Run code in the session. A run stopped by a limit or a crash leaves the
   * session as it was (sessionRolledBack); an exception keeps the state up to
   * it, as in a REPL. */
  execute(code: string, options: Omit<RunOptions, "language"> = {}): Promise<ExecutionResult> {
    return this.box.run(code, options, this.id);
  }

  /** A new session that starts as a copy of this one. */
  async fork(): Promise<Session> {
    const r = await this.box.call("fork_session", { session_id: this.id });
    return new Session(this.box, r.session_id, this.language);
  }

  /** Save the state now; returns the checkpoint's id for restore(). */
  async checkpoint(): Promise<string> {
    const r = await this.box.call("checkpoint_session", { session_id: this.id });
    return r.checkpoint_id;
  }

  async restore(checkpointId: string): Promise<void> {
    await this.box.call("restore_session", { session_id: this.id, checkpoint_id: checkpointId });
  }

  async listFiles(path = "/app", options: { recursive?: boolean } = {}): Promise<FileEntry[]> {
    const r = await this.box.call("list_files", { session_id: this.id, path, recursive: !!options.recursive });
    return r.entries;
  }

  /** A file under /app as text (UTF-8). */
  async readFile(path: string): Promise<string> {
    const r = await this.box.call("read_file", { session_id: this.id, path });
    return r.content;
  }

  /** A file under /app as bytes. */
  async readFileBytes(path: string): Promise<Buffer> {
    const r = await this.box.call("read_file", { session_id: this.id, path, encoding: "base64" });
    return Buffer.from(r.content, "base64");
  }

  /** Create or replace a file under /app (text as UTF-8, or bytes). */
  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    const args =
      typeof content === "string"
        ? { session_id: this.id, path, content }
        : { session_id: this.id, path, content: Buffer.from(content).toString("base64"), encoding: "base64" };
    await this.box.call("write_file", args);
  }

  /** Empty /app; the interpreter's state stays. */
  async resetWorkspace(): Promise<void> {
    await this.box.call("reset_workspace", { session_id: this.id });
  }

  /** Install a Python package into the session (from the server's wheelhouse or index). */
  async install(requirement: string): Promise<Record<string, unknown>> {
    return this.box.call("install_package", { session_id: this.id, requirement });
  }

  async destroy(): Promise<void> {
    await this.box.call("destroy_session", { session_id: this.id });
  }

  /** `await using s = await box.createSession()` destroys it at the block's end. */
  async [asyncDispose](): Promise<void> {
    await this.destroy();
  }
}

/* the server's messages mostly name their tool already */
function prefixed(name: string, message: string): string {
  return message.startsWith(`${name}:`) ? message : `${name}: ${message}`;
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "no content";
  return (content as ToolContent[])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}
