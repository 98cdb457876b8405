/**
 * The runner shape eval harnesses use: `execute(code)` resolves to
 * {success, output, error, executionTimeMs} and never rejects for what the
 * code did. `output` is what the program printed (stdout), `error` what went
 * wrong ("ValueError: bad", or the status and stderr) or undefined.
 */
import { WasmBox, type Language, type WasmBoxOptions } from "./client.js";

export interface RunnerResult {
  success: boolean;
  output: string;
  error?: string;
  executionTimeMs: number;
}

class CodeRunner {
  private readonly box: WasmBox;
  private readonly ownsBox: boolean; /* a WasmBox it was given stays open */

  constructor(
    private readonly language: Language,
    options: Omit<WasmBoxOptions, "language"> | WasmBox = {},
  ) {
    this.ownsBox = !(options instanceof WasmBox);
    this.box = options instanceof WasmBox ? options : new WasmBox(options);
  }

  async execute(code: string, options: { timeoutSeconds?: number; stdin?: string } = {}): Promise<RunnerResult> {
    const r = await this.box.execute(code, { ...options, language: this.language });
    const out: RunnerResult = { success: r.ok, output: r.stdout, executionTimeMs: r.durationMs };
    if (!r.ok) {
      out.error = r.error
        ? `${r.error.type}: ${r.error.message}`
        : `${r.status}${r.stderr ? `: ${r.stderr.trim()}` : ` (exit code ${r.exitCode})`}`;
    }
    return out;
  }

  /** Stops the server it started; a WasmBox it was given is the caller's to close. */
  close(): Promise<void> {
    return this.ownsBox ? this.box.close() : Promise.resolve();
  }
}

export class PythonRunner extends CodeRunner {
  constructor(options: Omit<WasmBoxOptions, "language"> | WasmBox = {}) {
    super("python", options);
  }
}

export class JavaScriptRunner extends CodeRunner {
  constructor(options: Omit<WasmBoxOptions, "language"> | WasmBox = {}) {
    super("javascript", options);
  }
}
