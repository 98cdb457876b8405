/* The playground page: code in a CodeMirror editor, run through the server's
 * own MCP endpoint (/mcp, protocol 2025-11-25) with the same checks as any
 * client: the bearer token, if the server has one, comes from the Token
 * field (or #token=... in the address, removed once read). What the guest
 * printed is shown as text, never as HTML; its images as data: URLs. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const PROTOCOL = "2025-11-25";
  const SAMPLES = {
    python: 'import statistics\n\ndata = [3, 1, 4, 1, 5, 9, 2, 6]\nprint("mean", statistics.mean(data))\nprint("sorted", sorted(data))\n',
    javascript:
      'const data = [3, 1, 4, 1, 5, 9, 2, 6];\nconsole.log("mean", data.reduce((a, b) => a + b) / data.length);\nconsole.log("sorted", [...data].sort((a, b) => a - b));\n',
  };
  const MODES = { python: "python", javascript: "javascript" };

  let mcpSession = null; /* Mcp-Session-Id */
  let sandbox = null; /* {id, language}: the session "Run in session" uses */
  let nextId = 1;

  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("token")) {
    $("token").value = hash.get("token");
    history.replaceState(null, "", location.pathname);
  }

  const editor = CodeMirror($("editor"), {
    value: SAMPLES.python,
    mode: MODES.python,
    lineNumbers: true,
    indentUnit: 4,
    matchBrackets: true,
    autofocus: true,
    extraKeys: {
      "Ctrl-Enter": () => run(false),
      "Cmd-Enter": () => run(false),
      "Shift-Ctrl-Enter": () => run(true),
      "Shift-Cmd-Enter": () => run(true),
      Tab: (cm) => cm.execCommand(cm.somethingSelected() ? "indentMore" : "insertSoftTab"),
    },
  });

  /* ---- MCP over fetch ---- */

  async function post(message) {
    const headers = { "Content-Type": "application/json", Accept: "application/json", "MCP-Protocol-Version": PROTOCOL };
    if (mcpSession) headers["Mcp-Session-Id"] = mcpSession;
    const token = $("token").value.trim();
    if (token) headers.Authorization = "Bearer " + token;
    const res = await fetch("/mcp", { method: "POST", headers, body: JSON.stringify(message) });
    const sid = res.headers.get("Mcp-Session-Id");
    if (sid) mcpSession = sid;
    if (res.status === 202 || res.status === 204) return null;
    let reply;
    try {
      reply = JSON.parse(await res.text());
    } catch (e) {
      throw new Error("HTTP " + res.status + " from the server, not JSON");
    }
    if (reply.error) {
      const err = new Error(reply.error.message);
      err.status = res.status;
      throw err;
    }
    return reply.result;
  }

  async function initialize() {
    mcpSession = null;
    await post({
      jsonrpc: "2.0",
      id: nextId++,
      method: "initialize",
      params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "wasmbox-playground", version: "1" } },
    });
    await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /* one tools/call; the MCP session is made on first use and again when the
   * server forgot it (it restarted, or the session idled out) */
  async function tool(name, args) {
    if (!mcpSession) await initialize();
    const call = () => post({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args } });
    try {
      return await call();
    } catch (e) {
      if (e.status !== 404) throw e;
      await initialize();
      return await call();
    }
  }

  function toolText(r) {
    return (r.content || [])
      .filter((c) => c.type === "text")
      .map((c) => c.text)
      .join("\n");
  }

  /* ---- the page ---- */

  function setBusy(busy) {
    for (const id of ["run", "run-session", "new-session"]) $(id).disabled = busy;
  }

  function clearOutput() {
    for (const id of ["stdout", "stderr", "limits", "error"]) $(id).textContent = "";
    $("error").hidden = true;
    $("images").replaceChildren();
  }

  function showStatus(status, text) {
    $("status").dataset.status = status;
    $("status").textContent = text;
  }

  function showResult(r, content) {
    const exit = r.exit_code ? " (exit code " + r.exit_code + ")" : "";
    showStatus(r.status, r.status + exit);
    const parts = [r.duration_ms.toFixed(1) + " ms"];
    if (r.fuel_used !== undefined) parts.push(r.fuel_used.toLocaleString("en-US") + " fuel");
    if (r.memory_peak_bytes !== undefined) parts.push((r.memory_peak_bytes / 1048576).toFixed(1) + " MB peak memory");
    if (r.files_changed && r.files_changed.length) parts.push(r.files_changed.length + " file(s) changed");
    if (r.session_rolled_back) parts.push("session rolled back");
    $("limits").textContent = parts.join(" · ");
    $("stdout").textContent = r.stdout + (r.stdout_truncated ? "\n[truncated: " + r.stdout_bytes + " bytes written]" : "");
    $("stderr").textContent = r.stderr + (r.stderr_truncated ? "\n[truncated: " + r.stderr_bytes + " bytes written]" : "");
    if (r.error) {
      const lines = [r.error.type + ": " + r.error.message].concat(r.error.guidance || []);
      $("error").textContent = lines.join("\n");
      $("error").hidden = false;
    }
    for (const c of content || []) {
      if (c.type !== "image" || !/^image\/(png|jpeg|gif|webp|svg\+xml)$/.test(c.mimeType)) continue;
      const img = document.createElement("img");
      img.src = "data:" + c.mimeType + ";base64," + c.data;
      img.alt = "an image the code wrote";
      $("images").appendChild(img);
    }
  }

  function showSession() {
    $("session").textContent = sandbox ? "session " + sandbox.id + " (" + sandbox.language + ")" : "no session";
  }

  async function listFiles() {
    const list = $("files");
    const r = await tool("list_files", { session_id: sandbox.id, recursive: true });
    const entries = r.isError ? [] : r.structuredContent.entries;
    list.replaceChildren();
    for (const e of entries) {
      const li = document.createElement("li");
      li.textContent = e.type === "directory" ? e.path + "/" : e.path + "  (" + e.size + " bytes)";
      list.appendChild(li);
    }
    if (!entries.length) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = r.isError ? toolText(r) : "none";
      list.appendChild(li);
    }
  }

  async function run(inSession) {
    if ($("run").disabled) return;
    setBusy(true);
    clearOutput();
    showStatus("running", "running…");
    try {
      const language = $("language").value;
      const args = { code: editor.getValue(), timeout_seconds: Number($("timeout").value), memory_mb: Number($("memory").value) };
      if (inSession) {
        if (!sandbox || sandbox.language !== language) {
          const made = await tool("create_session", { language });
          if (made.isError) throw new Error(toolText(made));
          sandbox = { id: made.structuredContent.session_id, language };
          showSession();
        }
        args.session_id = sandbox.id;
      } else {
        args.language = language;
      }
      const r = await tool("execute_code", args);
      const result = r.structuredContent;
      if (!result || !result.status) throw new Error(toolText(r));
      showResult(result, r.content);
      if (inSession) await listFiles();
    } catch (e) {
      showStatus("failed", "failed: " + e.message);
    } finally {
      setBusy(false);
    }
  }

  async function newSession() {
    const old = sandbox;
    sandbox = null;
    showSession();
    $("files").replaceChildren();
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "none";
    $("files").appendChild(li);
    if (old) await tool("destroy_session", { session_id: old.id }).catch(() => null);
  }

  $("run").addEventListener("click", () => run(false));
  $("run-session").addEventListener("click", () => run(true));
  $("new-session").addEventListener("click", newSession);
  $("language").addEventListener("change", () => {
    const language = $("language").value;
    const text = editor.getValue();
    if (!text.trim() || Object.values(SAMPLES).includes(text)) editor.setValue(SAMPLES[language]);
    editor.setOption("mode", MODES[language]);
    editor.focus();
  });
})();
