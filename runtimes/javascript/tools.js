// The host's tools from sandboxed code (wasmbox's code mode): the global
// `tools` and code-executor-MCP's names.
//
//   await tools.list()                      [{name, description}, ...]
//   await tools.search('read a file', 5)    best matches first
//   await tools.schema('files__read_file')  name, description, inputSchema, ...
//   await tools.call('files__read_file', {path: '/tmp/x'})
//   await tools.files.readFile({path: '/tmp/x'})   files__read_file
//   callMCPTool('mcp__files__read_file', {...}), discoverMCPTools(query),
//   getToolSchema(name), searchTools(query, limit)
//
// A call's result is the tool's structuredContent when it gives one, else
// its content: text (parsed when it is a JSON object or array), images and
// audio as Uint8Array; several items make an array. A tool that reports an
// error, a tool this call may not use and a call over the call's limits
// reject with a ToolError (.type says which). Every request goes to the
// host (native.toolRequest), which decides what exists and what is
// allowed; nothing here is a security check. Calls are synchronous in the
// host; the promises are for code written against async tool APIs.
(function (native, shared) {
  'use strict';

  const { define } = shared;

  class ToolError extends Error {
    constructor(message, type = 'ToolError') {
      super(String(message));
      define(this, 'name', 'ToolError');
      define(this, 'type', String(type));
    }
  }

  const request = (req) => {
    const reply = JSON.parse(native.toolRequest(JSON.stringify(req)));
    if (!reply.ok) {
      const e = reply.error || {};
      throw new ToolError(e.message || 'the tool request failed', e.type || 'ToolError');
    }
    return reply.result;
  };

  const b64 = (s) => Uint8Array.from(atob(String(s || '')), (c) => c.charCodeAt(0));
  const text = (t) => {
    const s = String(t || '');
    const c = s.trimStart()[0];
    if (c === '{' || c === '[') {
      try { return JSON.parse(s); } catch { /* plain text after all */ }
    }
    return s;
  };
  const item = (it) => {
    if (it.type === 'text') return text(it.text);
    if (it.type === 'image' || it.type === 'audio') return b64(it.data);
    if (it.type === 'resource' && it.resource) {
      if ('text' in it.resource) return it.resource.text;
      if ('blob' in it.resource) return b64(it.resource.blob);
    }
    return it;
  };
  const result = (res) => {
    if (!res || typeof res !== 'object') return res;
    const content = Array.isArray(res.content) ? res.content.filter((c) => c && typeof c === 'object') : [];
    if (res.isError) {
      const msg = content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      throw new ToolError(msg || 'the tool reported an error');
    }
    if (res.structuredContent !== undefined && res.structuredContent !== null) return res.structuredContent;
    const values = content.map(item);
    return values.length === 0 ? null : values.length === 1 ? values[0] : values;
  };
  const strip = (name) => (typeof name === 'string' && name.startsWith('mcp__') ? name.slice(5) : name);
  const promised = (fn) => (...args) => {
    try { return Promise.resolve(fn(...args)); } catch (e) { return Promise.reject(e); }
  };

  const call = (name, args) => result(request({ op: 'call', name: strip(name), arguments: args ?? {} }));
  const list = () => request({ op: 'list' });
  const search = (query, limit = 10) => request({ op: 'search', query: String(query), limit: Number(limit) });
  const schema = (name) => request({ op: 'schema', name: strip(name) });

  // tools.<server>.<tool>: a tool of that server, by its name or the name
  // in camelCase (createIssue for create_issue)
  const loose = (s) => s.replace(/[_-]/g, '').toLowerCase();
  const server = (srv) => new Proxy(Object.create(null), {
    get(target, tool) {
      if (typeof tool !== 'string') return undefined;
      const prefix = `${srv}__`;
      const names = list().map((t) => t.name).filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
      let name = names.includes(tool) ? tool : undefined;
      if (!name) {
        const found = names.filter((n) => loose(n) === loose(tool));
        if (found.length !== 1) {
          throw new ToolError(`no tool '${tool}' on server '${srv}' (it has: ${names.sort().join(', ') || 'none this call may use'})`);
        }
        name = found[0];
      }
      const full = prefix + name;
      return promised((args) => call(full, args));
    },
    ownKeys() {
      const prefix = `${srv}__`;
      return list().map((t) => t.name).filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
    },
    getOwnPropertyDescriptor(target, key) {
      return { value: undefined, enumerable: true, configurable: true, writable: false };
    },
  });

  const methods = {
    call: promised(call),
    list: promised(list),
    search: promised(search),
    schema: promised(schema),
  };
  const tools = new Proxy(methods, {
    get(target, key) {
      if (typeof key !== 'string' || Object.prototype.hasOwnProperty.call(target, key)) return target[key];
      if (key === 'then' || key === 'toJSON' || key === 'constructor') return undefined;
      return server(key);
    },
  });

  define(globalThis, 'tools', tools);
  define(globalThis, 'ToolError', ToolError);
  define(globalThis, 'callMCPTool', promised(call));
  define(globalThis, 'discoverMCPTools', promised((query, limit = 50) => (query ? search(query, limit) : list())));
  define(globalThis, 'getToolSchema', promised(schema));
  define(globalThis, 'searchTools', promised(search));
})
