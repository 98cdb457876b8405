// Guest-side JavaScript of the wasmbox JavaScript runtime, evaluated once in
// wasmbox_init (wasmbox_main.c embeds this file and the node_*.js after it).
// Each file is one function expression: the C glue calls it with `native`,
// its own small functions (write, files, clock, exit, bytes), which
// therefore never become globals, and `shared`, what the files hand each
// other. This one defines the sandbox's own globals (console, file helpers,
// timers, performance, process) and the hooks the C event loop calls
// (shared.hooks).
//
// console formats values the way node's util.inspect does for plain data
// (depth 2, 128-column lines, arrays of short items in columns, circular
// references, Map/Set/typed arrays/errors), so output looks like node's.
(function (native, shared) {
  'use strict';

  const PRELUDE = '<wasmbox>';
  const define = (obj, name, value) =>
    Object.defineProperty(obj, name, { value, writable: true, configurable: true, enumerable: false });
  // own data properties, defined: assigning would run setters the guest put
  // on Object.prototype
  const own = (obj, props) => {
    for (const k of Object.keys(props)) {
      Object.defineProperty(obj, k, { value: props[k], writable: true, enumerable: true, configurable: true });
    }
    return obj;
  };
  const tryCall = (fn, v) => { try { fn.call(v); return true; } catch { return false; } };
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const isMap = (v) => tryCall(Map.prototype.has, v);
  const isSet = (v) => tryCall(Set.prototype.has, v);
  const isWeakMap = (v) => tryCall(WeakMap.prototype.has, v);
  const isWeakSet = (v) => tryCall(WeakSet.prototype.has, v);
  const isDate = (v) => tryCall(Date.prototype.getTime, v);
  const isArrayBuffer = (v) => tryCall(getter(ArrayBuffer.prototype, 'byteLength'), v);
  const isTypedArray = (v) => ArrayBuffer.isView(v) && !(v instanceof DataView);
  const BOXED = [[Number, 'Number'], [String, 'String'], [Boolean, 'Boolean'], [BigInt, 'BigInt'], [Symbol, 'Symbol']];

  // ---- inspect ----------------------------------------------------------
  const BREAK = 128, COMPACT = 3, MAX_ITEMS = 100, MAX_STRING = 10000, MIN_LINE = 16;
  const CUSTOM = Symbol.for('nodejs.util.inspect.custom');
  const IDENT = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const ESCAPES = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 39: "\\'", 92: '\\\\' };
  const plural = (n, word) => `${n} ${word}${n > 1 ? 's' : ''}`;
  const moreItems = (n) => `... ${plural(n, 'more item')}`;

  // A string as node quotes it: single quotes, or double / back quotes when
  // that avoids escaping; control characters and lone surrogates escaped.
  function quote(s) {
    let q = 39;
    if (s.includes("'")) {
      if (!s.includes('"')) q = 34;
      else if (!s.includes('`') && !s.includes('${')) q = 96;
    }
    let out = '';
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === q || c === 92 || c < 32 || (c > 126 && c < 160)) {
        out += ESCAPES[c] || '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
      } else if (c >= 0xd800 && c <= 0xdfff) {
        const d = s.charCodeAt(i + 1);
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) { out += s[i] + s[i + 1]; i++; }
        else out += '\\u' + c.toString(16);
      } else {
        out += s[i];
      }
    }
    const ch = String.fromCharCode(q);
    return ch + out + ch;
  }

  function formatPrimitive(ctx, v) {
    switch (typeof v) {
      case 'string': {
        let trailer = '';
        if (v.length > MAX_STRING) {
          trailer = `... ${plural(v.length - MAX_STRING, 'more character')}`;
          v = v.slice(0, MAX_STRING);
        }
        if (v.length > MIN_LINE && v.length > BREAK - ctx.indent - 4) {
          const lines = v.split(/(?<=\n)/);
          return lines.map(quote).join(` +\n${' '.repeat(ctx.indent + 2)}`) + trailer;
        }
        return quote(v) + trailer;
      }
      case 'number': return Object.is(v, -0) ? '-0' : String(v);
      case 'bigint': return `${v}n`;
      case 'symbol': return String(v);
      default: return String(v);
    }
  }

  // Name of the nearest constructor in the prototype chain; null for an
  // object without prototype.
  function constructorName(obj) {
    for (let o = obj; o !== null; o = Object.getPrototypeOf(o)) {
      const d = Object.getOwnPropertyDescriptor(o, 'constructor');
      if (d && typeof d.value === 'function' && d.value.name !== '') {
        try { if (obj instanceof d.value) return d.value.name; } catch { /* revoked or odd: keep looking */ }
      }
    }
    return null;
  }

  function prefix(ctor, tag, fallback, size = '') {
    if (ctor === null) {
      return tag !== '' && fallback !== tag ? `[${fallback}${size}: null prototype] [${tag}] `
        : `[${fallback}${size}: null prototype] `;
    }
    return tag !== '' && ctor !== tag ? `${ctor}${size} [${tag}] ` : `${ctor}${size} `;
  }

  function ownKeys(v) {
    const keys = Object.keys(v);
    for (const s of Object.getOwnPropertySymbols(v)) if (Object.prototype.propertyIsEnumerable.call(v, s)) keys.push(s);
    return keys;
  }

  function functionBase(fn, ctor, tag) {
    const src = Function.prototype.toString.call(fn);
    if (src.startsWith('class') && src.endsWith('}')) {
      const name = (Object.prototype.hasOwnProperty.call(fn, 'name') && fn.name) || '(anonymous)';
      let base = `class ${name}`;
      if (ctor !== 'Function' && ctor !== null) base += ` [${ctor}]`;
      const sup = Object.getPrototypeOf(fn);
      if (sup && sup.name) base += ` extends ${sup.name}`;
      return `[${base}]`;
    }
    const type = ['AsyncFunction', 'GeneratorFunction', 'AsyncGeneratorFunction'].includes(ctor) ? ctor : 'Function';
    let base = `[${type}${ctor === null ? ' (null prototype)' : ''}`;
    base += fn.name === '' ? ' (anonymous)]' : `: ${fn.name}]`;
    if (ctor !== type && ctor !== null) base += ` ${ctor}`;
    if (tag !== '' && ctor !== tag) base += ` [${tag}]`;
    return base;
  }

  // Stack frames of this prelude are ours, not the program's.
  const cleanStack = (stack) => stack.split('\n').filter((l) => !l.includes(`(${PRELUDE}:`)).join('\n');

  // "Name: message\n    at ..." with the header node would print.
  function errorText(err, ctor) {
    let name, message, stack;
    try { name = err.name != null ? String(err.name) : 'Error'; } catch { name = 'Error'; }
    try { message = err.message != null ? String(err.message) : ''; } catch { message = ''; }
    try { stack = typeof err.stack === 'string' ? cleanStack(err.stack).replace(/\n+$/, '') : ''; } catch { stack = ''; }
    let head = name;
    if (ctor && ctor !== name) head = ctor.includes(name) ? ctor : `${ctor} [${name}]`;
    if (message) head += `: ${message}`;
    return stack ? `${head}\n${stack}` : `[${head}]`;
  }

  function formatValue(ctx, v, depth) {
    if (v === null) return 'null';
    if (typeof v !== 'object' && typeof v !== 'function') return formatPrimitive(ctx, v);
    if (ctx.seen.includes(v)) {
      if (!ctx.circular.has(v)) ctx.circular.set(v, ctx.circular.size + 1);
      return `[Circular *${ctx.circular.get(v)}]`;
    }
    let custom, buffer;
    try { custom = v[CUSTOM]; buffer = shared.isBuffer(v); } catch { /* a revoked Proxy: formatRaw says what it can */ }
    if (typeof custom === 'function' && custom !== inspect) {
      const r = custom.call(v, ctx.depth - depth, { depth: ctx.depth - depth }, inspect);
      if (r !== v) return typeof r === 'string' ? r : formatValue(ctx, r, depth);
    }
    if (buffer) {
      const hex = native.hexEncode(v.subarray(0, 50)).replace(/(..)(?!$)/g, '$1 ');
      return `<Buffer ${hex}${v.length > 50 ? ` ... ${v.length - 50} more byte${v.length > 51 ? 's' : ''}` : ''}>`;
    }
    return formatRaw(ctx, v, depth);
  }

  function formatProperty(ctx, obj, depth, key, isArrayItem) {
    const d = Object.getOwnPropertyDescriptor(obj, key) || { value: obj[key], enumerable: true };
    let str;
    if (d.value !== undefined) {
      ctx.indent += 2;
      str = formatValue(ctx, d.value, depth);
      ctx.indent -= 2;
    } else if (d.get !== undefined) {
      str = d.set !== undefined ? '[Getter/Setter]' : '[Getter]';
    } else if (d.set !== undefined) {
      str = '[Setter]';
    } else {
      str = 'undefined';
    }
    if (isArrayItem) return str;
    let name;
    if (typeof key === 'symbol') name = `[${String(key)}]`;
    else if (key === '__proto__') name = "['__proto__']";
    else if (d.enumerable === false) name = `[${key}]`;
    else name = IDENT.test(key) ? key : quote(key);
    return `${name}: ${str}`;
  }

  function formatArrayItems(ctx, arr, depth) {
    const out = [], n = Math.min(MAX_ITEMS, arr.length);
    for (let i = 0; i < n; i++) {
      if (!Object.prototype.hasOwnProperty.call(arr, i)) return sparseItems(ctx, arr, depth, n, out, i);
      out.push(formatProperty(ctx, arr, depth, i, true));
    }
    if (arr.length > n) out.push(moreItems(arr.length - n));
    return out;
  }

  // Holes as "<N empty items>", walking the keys rather than every index
  // (new Array(1e9) has one hole of a billion items).
  function sparseItems(ctx, arr, depth, n, out, i) {
    const keys = Object.keys(arr);
    let index = i;
    for (let k = i; k < keys.length && out.length < n; k++) {
      const num = Number(keys[k]);
      if (String(num >>> 0) !== keys[k] || num === 0xffffffff) break;
      if (num !== index) {
        out.push(`<${plural(num - index, 'empty item')}>`);
        index = num;
        if (out.length === n) break;
      }
      out.push(formatProperty(ctx, arr, depth, num, true));
      index++;
    }
    const remaining = arr.length - index;
    if (remaining > 0) out.push(out.length < n ? `<${plural(remaining, 'empty item')}>` : moreItems(remaining));
    return out;
  }

  // Arrays of more than six short items in aligned columns, as node does.
  function groupItems(ctx, out, value) {
    let total = 0, maxLen = 0;
    let n = out.length;
    if (out.length > MAX_ITEMS) n--; // leave the "... more items" line out
    const lens = [];
    for (let i = 0; i < n; i++) {
      lens.push(out[i].length);
      total += out[i].length + 2;
      if (maxLen < out[i].length) maxLen = out[i].length;
    }
    const actualMax = maxLen + 2;
    if (!(actualMax * 3 + ctx.indent < BREAK && (total / actualMax > 5 || maxLen <= 6))) return out;
    const bias = Math.sqrt(actualMax - total / out.length);
    const biasedMax = Math.max(actualMax - 3 - bias, 1);
    const columns = Math.min(Math.round(Math.sqrt(2.5 * biasedMax * n) / biasedMax),
      Math.floor((BREAK - ctx.indent) / actualMax), COMPACT * 4, 15);
    if (columns <= 1) return out;
    const widths = [];
    for (let c = 0; c < columns; c++) {
      let w = 0;
      for (let j = c; j < n; j += columns) if (lens[j] > w) w = lens[j];
      widths.push(w + 2);
    }
    let numeric = true;
    if (value !== undefined) {
      for (let i = 0; i < out.length; i++) {
        if (typeof value[i] !== 'number' && typeof value[i] !== 'bigint') { numeric = false; break; }
      }
    }
    const rows = [];
    for (let i = 0; i < n; i += columns) {
      const last = Math.min(i + columns, n) - 1;
      let row = '';
      for (let j = i; j < last; j++) {
        row += numeric ? `${out[j]}, `.padStart(widths[j - i]) : `${out[j]}, `.padEnd(widths[j - i]);
      }
      row += numeric ? out[last].padStart(widths[last - i] - 2) : out[last];
      rows.push(row);
    }
    if (n < out.length) rows.push(out[n]);
    return rows;
  }

  function fitsOnLine(ctx, out, start, base) {
    let total = out.length + start;
    if (total + out.length > BREAK) return false;
    for (const s of out) {
      total += s.length;
      if (total > BREAK) return false;
    }
    return base === '' || !base.includes('\n');
  }

  function reduce(ctx, out, base, braces, isArray, depth, value) {
    const entries = out.length;
    if (isArray && entries > 6 && ctx.compact) out = groupItems(ctx, out, value);
    if (ctx.compact && ctx.currentDepth - depth < COMPACT && entries === out.length) {
      const start = out.length + ctx.indent + braces[0].length + base.length + 10;
      if (fitsOnLine(ctx, out, start, base)) {
        const joined = out.join(', ');
        if (!joined.includes('\n')) return `${base ? `${base} ` : ''}${braces[0]} ${joined} ${braces[1]}`;
      }
    }
    const ind = `\n${' '.repeat(ctx.indent)}`;
    return `${base ? `${base} ` : ''}${braces[0]}${ind}  ${out.join(`,${ind}  `)}${ind}${braces[1]}`;
  }

  function formatRaw(ctx, v, depth) {
    const ctor = constructorName(v);
    let tag = '';
    try {
      const t = v[Symbol.toStringTag];
      if (typeof t === 'string' && t !== '' && !Object.prototype.propertyIsEnumerable.call(v, Symbol.toStringTag)) tag = t;
    } catch { /* a throwing getter: no tag */ }
    let base = '', braces = ['{', '}'], isArray = false, keys, items = () => [];
    if (Array.isArray(v)) {
      const p = ctor !== 'Array' || tag !== '' ? prefix(ctor, tag, 'Array', `(${v.length})`) : '';
      keys = Object.keys(v).filter((k) => !(String(k >>> 0) === k && k >>> 0 !== 0xffffffff));
      braces = [`${p}[`, ']'];
      if (v.length === 0 && keys.length === 0) return `${braces[0]}]`;
      isArray = true;
      items = () => formatArrayItems(ctx, v, depth + 1);
    } else if (isSet(v)) {
      const p = prefix(ctor, tag, 'Set', `(${v.size})`);
      keys = ownKeys(v);
      if (v.size === 0 && keys.length === 0) return `${p}{}`;
      braces = [`${p}{`, '}'];
      items = () => {
        const out = [];
        ctx.indent += 2;
        for (const x of v) { if (out.length >= MAX_ITEMS) break; out.push(formatValue(ctx, x, depth + 1)); }
        ctx.indent -= 2;
        if (v.size > MAX_ITEMS) out.push(moreItems(v.size - MAX_ITEMS));
        return out;
      };
    } else if (isMap(v)) {
      const p = prefix(ctor, tag, 'Map', `(${v.size})`);
      keys = ownKeys(v);
      if (v.size === 0 && keys.length === 0) return `${p}{}`;
      braces = [`${p}{`, '}'];
      items = () => {
        const out = [];
        ctx.indent += 2;
        for (const [k, x] of v) {
          if (out.length >= MAX_ITEMS) break;
          out.push(`${formatValue(ctx, k, depth + 1)} => ${formatValue(ctx, x, depth + 1)}`);
        }
        ctx.indent -= 2;
        if (v.size > MAX_ITEMS) out.push(moreItems(v.size - MAX_ITEMS));
        return out;
      };
    } else if (isTypedArray(v)) {
      keys = Object.keys(v).filter((k) => String(k >>> 0) !== k);
      const p = prefix(ctor, tag, tag, `(${v.length})`);
      braces = [`${p}[`, ']'];
      if (v.length === 0 && keys.length === 0) return `${braces[0]}]`;
      isArray = true;
      items = () => {
        const n = Math.min(MAX_ITEMS, v.length);
        const out = [];
        for (let i = 0; i < n; i++) out.push(formatPrimitive(ctx, v[i]));
        if (v.length > n) out.push(moreItems(v.length - n));
        return out;
      };
    } else {
      keys = ownKeys(v);
      if (ctor === 'Object') {
        if (Object.prototype.toString.call(v) === '[object Arguments]') braces[0] = '[Arguments] {';
        else if (tag !== '') braces[0] = `${prefix(ctor, tag, 'Object')}{`;
        if (keys.length === 0) return `${braces[0]}}`;
      } else if (typeof v === 'function') {
        base = functionBase(v, ctor, tag);
        keys = keys.filter((k) => k !== 'prototype');
        if (keys.length === 0) return base;
      } else if (v instanceof RegExp) {
        base = RegExp.prototype.toString.call(v);
        const p = prefix(ctor, tag, 'RegExp');
        if (p !== 'RegExp ') base = p + base;
        keys = keys.filter((k) => k !== 'lastIndex');
        if (keys.length === 0 || depth > ctx.depth) return base;
      } else if (isDate(v)) {
        base = Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
        const p = prefix(ctor, tag, 'Date');
        if (p !== 'Date ') base = p + base;
        if (keys.length === 0) return base;
      } else if (v instanceof Error) {
        base = errorText(v, ctor);
        keys = keys.filter((k) => !['name', 'message', 'stack'].includes(k) || !base.includes(String(v[k])));
        if ('cause' in v && !keys.includes('cause')) keys.push('cause');
        if (ctx.indent) base = base.split('\n').join(`\n${' '.repeat(ctx.indent)}`);
        if (keys.length === 0) return base;
      } else if (isArrayBuffer(v)) {
        const bytes = new Uint8Array(v);
        const hex = Array.from(bytes.subarray(0, MAX_ITEMS), (b) => b.toString(16).padStart(2, '0')).join(' ');
        const more = bytes.length > MAX_ITEMS ? ` ... ${plural(bytes.length - MAX_ITEMS, 'more byte')}` : '';
        braces[0] = `${prefix(ctor, tag, 'ArrayBuffer')}{`;
        items = () => [`[Uint8Contents]: <${hex}${more}>`, `byteLength: ${v.byteLength}`];
      } else if (native.promiseState(v) >= 0) {
        braces[0] = `${prefix(ctor, tag, 'Promise')}{`;
        items = () => {
          const [state, result] = [native.promiseState(v), native.promiseResult(v)];
          if (state === 0) return ['<pending>'];
          ctx.indent += 2;
          const s = formatValue(ctx, result, depth + 1);
          ctx.indent -= 2;
          return [state === 2 ? `<rejected> ${s}` : s];
        };
      } else if (isWeakMap(v) || isWeakSet(v)) {
        braces[0] = `${prefix(ctor, tag, isWeakMap(v) ? 'WeakMap' : 'WeakSet')}{`;
        items = () => ['<items unknown>'];
      } else {
        const boxed = BOXED.find(([C]) => tryCall(C.prototype.valueOf, v));
        if (boxed) {
          const [C, type] = boxed;
          base = `[${type}${type !== ctor ? (ctor === null ? ' (null prototype)' : ` (${ctor})`) : ''}: ` +
            `${formatPrimitive({ indent: 0 }, C.prototype.valueOf.call(v))}]`;
          if (type === 'String') keys = keys.filter((k) => String(k >>> 0) !== k);
          if (keys.length === 0) return base;
        } else {
          const fallback = ctor === null ? 'Object' : '';
          const p = ctor === null ? prefix(null, tag, fallback) : prefix(ctor, tag, fallback);
          if (keys.length === 0) return `${p}{}`;
          braces[0] = `${p}{`;
        }
      }
    }
    if (depth > ctx.depth) {
      const name = ctor === null ? prefix(null, tag, 'Object').slice(0, -1) : prefix(ctor, tag, '').slice(0, -1);
      return ctor === null ? name : `[${name}]`;
    }
    ctx.seen.push(v);
    ctx.currentDepth = depth + 1;
    const out = items();
    for (const k of keys) out.push(formatProperty(ctx, v, depth + 1, k, false));
    ctx.seen.pop();
    if (ctx.circular.has(v)) {
      const ref = `<ref *${ctx.circular.get(v)}>`;
      base = base === '' ? ref : `${ref} ${base}`;
    }
    return reduce(ctx, out, base, braces, isArray, depth + 1, v);
  }

  // util.inspect's options that change the text here: depth (null or
  // Infinity: all the way down) and compact: false (one entry a line)
  function inspect(v, options) {
    let depth = 2, compact = true;
    if (options !== null && typeof options === 'object') {
      if ('depth' in options) depth = options.depth === null ? Infinity : Number(options.depth);
      compact = options.compact !== false;
    }
    return formatValue({ seen: [], circular: new Map(), indent: 0, currentDepth: 0, depth, compact }, v, 0);
  }

  // console.log's arguments: printf-style placeholders in a first string
  // argument, strings as they are, everything else inspected.
  function format(args) {
    let i = 0, str = '';
    if (typeof args[0] === 'string' && args.length > 1) {
      const f = args[0];
      let last = 0;
      i = 1;
      for (let p = 0; p < f.length - 1; p++) {
        if (f.charCodeAt(p) !== 37) continue;
        const c = f[p + 1];
        if (c === '%') { str += f.slice(last, p + 1); last = p + 2; p++; continue; }
        if (i >= args.length || !'sdifjoOc'.includes(c)) continue;
        const a = args[i++];
        let s;
        switch (c) {
          case 's': s = typeof a === 'bigint' ? `${a}n` : typeof a === 'object' && a !== null ? inspect(a) : String(a); break;
          case 'd': s = typeof a === 'bigint' ? `${a}n` : typeof a === 'symbol' ? 'NaN' : formatPrimitive({ indent: 0 }, Number(a)); break;
          case 'i': s = typeof a === 'bigint' ? `${a}n` : typeof a === 'symbol' ? 'NaN' : String(parseInt(a)); break;
          case 'f': s = typeof a === 'symbol' ? 'NaN' : String(parseFloat(a)); break;
          case 'j': try { s = JSON.stringify(a); } catch { s = '[Circular]'; } break;
          case 'o': case 'O': s = inspect(a); break;
          default: s = ''; // %c: CSS, meaningless here
        }
        str += f.slice(last, p) + s;
        last = p + 2;
        p++;
      }
      str += f.slice(last);
    }
    for (let sep = i > 0 ? ' ' : ''; i < args.length; i++, sep = ' ') {
      const a = args[i], t = typeof a;
      // strings, numbers, booleans, undefined and null without inspect(): what it would
      // print, touching none of its objects (each object a call touches is a page written)
      str += sep + (t === 'string' ? a : t === 'number' ? (a === 0 && 1 / a < 0 ? '-0' : '' + a)
        : t === 'boolean' || a == null ? '' + a : inspect(a));
    }
    return str;
  }

  // ---- console -------------------------------------------------------------
  const counts = new Map(), timers0 = new Map();
  const out = (fd) => (...args) => native.write(fd, format(args) + '\n');
  const console = {
    log: out(1), info: out(1), debug: out(1), dir: (v) => native.write(1, inspect(v) + '\n'),
    warn: out(2), error: out(2),
    trace: (...args) => native.write(2, 'Trace' + (args.length ? ': ' + format(args) : '') + '\n' +
      cleanStack(new Error().stack).replace(/\n+$/, '') + '\n'),
    assert: (ok, ...args) => { if (!ok) native.write(2, 'Assertion failed' + (args.length ? ': ' + format(args) : '') + '\n'); },
    count: (label = 'default') => {
      counts.set(label, (counts.get(label) || 0) + 1);
      native.write(1, `${label}: ${counts.get(label)}\n`);
    },
    countReset: (label = 'default') => counts.delete(label),
    time: (label = 'default') => timers0.set(label, native.now()),
    timeLog: (label = 'default', ...args) => elapsed(label, args, false),
    timeEnd: (label = 'default') => elapsed(label, [], true),
  };
  function elapsed(label, args, end) {
    if (!timers0.has(label)) { native.write(2, `Warning: No such label '${label}' for console.time${end ? 'End' : 'Log'}()\n`); return; }
    const ms = native.now() - timers0.get(label);
    if (end) timers0.delete(label);
    native.write(1, `${label}: ${ms < 1000 ? ms.toFixed(3) + 'ms' : (ms / 1000).toFixed(3) + 's'}` +
      (args.length ? ' ' + format(args) : '') + '\n');
  }

  // ---- files (only what the sandbox's preopens allow: /app and mounts) ------
  // A path with a NUL would be cut short by the C call: refuse it, as node does.
  const checkPath = (path) => {
    path = String(path);
    if (path.includes('\0')) throw new TypeError(`path must be a string without null bytes: ${quote(path)}`);
    return path;
  };
  const readText = (path) => native.readFile(checkPath(path));
  const writeText = (path, text) => { native.writeFile(checkPath(path), String(text)); };
  const readJson = (path) => JSON.parse(readText(path));
  const writeJson = (path, value, indent = 2) => {
    const text = JSON.stringify(value, null, indent);
    if (text === undefined) throw new TypeError(`writeJson: ${typeof value} cannot be written as JSON`);
    writeText(path, text + '\n');
  };
  const listDir = (path = '.') => native.listDir(checkPath(path));
  const readStdin = () => native.readStdin();

  // ---- timers: the C loop runs them when no Promise job is left ------------
  const timers = new Map();
  let nextId = 1, seq = 0;
  // setTimeout's handle, as node's: unref() lets the program end before it
  // fires; it converts to its numeric id
  const handles = new WeakMap();
  const timerOf = (h) => timers.get(handles.get(h));
  class Timeout {
    ref() { const t = timerOf(this); if (t) { t.ref = true; native.timersArmed(); } return this; }
    unref() { const t = timerOf(this); if (t) t.ref = false; return this; }
    hasRef() { const t = timerOf(this); return t ? t.ref : false; }
    refresh() { const t = timerOf(this); if (t) t.at = native.now() + t.ms; return this; }
    close() { clear(this); return this; }
    [Symbol.toPrimitive]() { return handles.get(this); }
  }
  function addTimer(fn, ms, args, repeat) {
    if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
    ms = Number(ms);
    if (!(ms >= 1 && ms <= 2147483647)) ms = 1; // node's rule: out of range means 1 ms
    const id = nextId++;
    timers.set(id, { fn, args, ms, at: native.now() + ms, seq: seq++, repeat, ref: true });
    native.timersArmed(); // the C loop asks timerDelay only after this
    const h = new Timeout();
    handles.set(h, id);
    return h;
  }
  const clear = (h) => { timers.delete(typeof h === 'object' && h !== null ? handles.get(h) : Number(h)); };
  function nextTimer() {
    let best = null;
    for (const [id, t] of timers) {
      if (!best || t.at < best[1].at || (t.at === best[1].at && t.seq < best[1].seq)) best = [id, t];
    }
    return best;
  }
  // ms until the next timer is due (0: now), or -1 when none keeps the
  // program alive (there is none, or all are unref()'d)
  function timerDelay() {
    let alive = false;
    for (const t of timers.values()) if (t.ref) { alive = true; break; }
    const b = alive && nextTimer();
    return b ? Math.max(0, b[1].at - native.now()) : -1;
  }
  // run the earliest timer if it is due
  function runTimer() {
    const b = nextTimer();
    if (!b || b[1].at > native.now()) return;
    const [id, t] = b;
    if (t.repeat) { t.at = Math.max(t.at + t.ms, native.now()); t.seq = seq++; } else timers.delete(id);
    t.fn(...t.args);
  }

  // ---- uncaught errors: [type, message, text printed to stderr] --------------
  function describe(e) {
    if (e instanceof Error) {
      let ctor = null, message = '';
      try { ctor = constructorName(e); } catch { /* keep null */ }
      try { message = String(e.message); } catch { /* keep empty */ }
      let type = ctor || 'Error';
      try { if (!ctor && e.name) type = String(e.name); } catch { /* keep */ }
      let text;
      try { text = inspect(e); } catch { text = errorText(e, ctor); }
      const lines = text.split('\n');
      if (lines.length > 110) { // deep recursion: the first frames tell the story
        text = [...lines.slice(0, 100), `    ... ${lines.length - 110} more lines`, ...lines.slice(-10)].join('\n');
      }
      return [type, message, text + '\n'];
    }
    let text;
    try { text = inspect(e); } catch { text = '<uninspectable value>'; }
    return ['Uncaught', text, `Uncaught ${text}\n`];
  }

  // ---- globals -------------------------------------------------------------
  const env = native.env();
  const process = {
    env,
    argv: ['javascript'],
    platform: 'wasi',
    exitCode: undefined,
    exit: (code) => native.exit(code === undefined ? (process.exitCode | 0) : Number(code) | 0),
    cwd: () => '/app',
  };
  const g = globalThis;
  define(g, 'console', console);
  define(g, 'readText', readText);
  define(g, 'writeText', writeText);
  define(g, 'readJson', readJson);
  define(g, 'writeJson', writeJson);
  define(g, 'listDir', listDir);
  define(g, 'readStdin', readStdin);
  define(g, 'setTimeout', (fn, ms, ...args) => addTimer(fn, ms, args, false));
  define(g, 'setInterval', (fn, ms, ...args) => addTimer(fn, ms, args, true));
  define(g, 'clearTimeout', clear);
  define(g, 'clearInterval', clear);
  if (typeof g.queueMicrotask !== 'function') {
    define(g, 'queueMicrotask', (fn) => { Promise.resolve().then(() => fn()); });
  }
  // timeOrigin: computed when read, since this state may be a snapshot taken
  // in another process (the monotonic clock has another origin there)
  define(g, 'performance', { now: () => native.now(), get timeOrigin() { return Date.now() - native.now(); } });
  define(g, 'process', process);

  // the snapshot is taken next: the environment of the process that made it is not a call's
  function seal() {
    for (const k of Object.keys(env)) delete env[k];
  }
  // a new copy of the snapshot: this call's environment (the C side calls this only for a
  // call that has one, so that a call without touches none of these objects)
  function fresh() {
    Object.assign(env, native.env());
  }

  shared.hooks = { describe, timerDelay, runTimer, seal, fresh };
  Object.assign(shared, { define, own, inspect, format, checkPath, process, isMap, isSet, isDate, isArrayBuffer,
    isTypedArray, addTimer, clear });
})
