// URL and URLSearchParams after the WHATWG URL standard, for what programs
// meet: http(s), ws(s), ftp and file URLs (authority, IPv4/IPv6 hosts,
// default ports, dot segments, percent-encoding sets), relative references
// against a base, and opaque URLs (mailto:, data:). Not done: IDNA (a
// non-ASCII host stays as written, lower-cased).
(function (native, shared) {
  'use strict';

  const { define, nodeError } = shared;
  const CUSTOM = Symbol.for('nodejs.util.inspect.custom');
  const SPECIAL = { 'ftp:': '21', 'file:': '', 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };
  const isSpecial = (scheme) => Object.prototype.hasOwnProperty.call(SPECIAL, scheme);

  // percent-encode sets, as predicates on a code unit
  const C0 = (c) => c < 0x20 || c > 0x7e;
  const FRAGMENT = (c) => C0(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
  const QUERY = (c) => C0(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
  const SPECIAL_QUERY = (c) => QUERY(c) || c === 0x27;
  const PATH = (c) => QUERY(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
  const USERINFO = (c) => PATH(c) || c === 0x2f || c === 0x3a || c === 0x3b || c === 0x3d || c === 0x40 ||
    (c >= 0x5b && c <= 0x5e) || c === 0x7c;
  function encodeSet(s, inSet) {
    let out = '';
    for (const ch of s.toWellFormed()) {
      const c = ch.charCodeAt(0);
      if (c > 0x7e) out += encodeURIComponent(ch);
      else out += inSet(c) ? '%' + c.toString(16).toUpperCase().padStart(2, '0') : ch;
    }
    return out;
  }

  // %XX sequences to bytes, the whole as UTF-8 (invalid bytes: U+FFFD)
  function percentDecode(s) {
    if (!s.includes('%')) return s;
    const bytes = [];
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x25 && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) { bytes.push(parseInt(s.slice(i + 1, i + 3), 16)); i += 2; }
      else if (c < 0x80) bytes.push(c);
      else {
        const ch = String.fromCodePoint(s.codePointAt(i));
        i += ch.length - 1;
        for (const b of new Uint8Array(native.utf8Encode(ch))) bytes.push(b);
      }
    }
    return native.utf8Decode(new Uint8Array(bytes), false);
  }

  const invalid = (input) => {
    const e = nodeError(TypeError, 'ERR_INVALID_URL', 'Invalid URL');
    e.input = input;
    return e;
  };

  // ---- hosts ----------------------------------------------------------------------
  function parseIPv4Number(s) {
    if (s === '') return NaN;
    let radix = 10;
    if (/^0[xX]/.test(s)) { s = s.slice(2); radix = 16; } else if (s.length > 1 && s[0] === '0') { s = s.slice(1); radix = 8; }
    if (s === '') return 0;
    const re = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
    return re.test(s) ? parseInt(s, radix) : NaN;
  }
  function parseIPv4(host) {
    const parts = host.split('.');
    if (parts[parts.length - 1] === '' && parts.length > 1) parts.pop();
    if (parts.length > 4) return null;
    const nums = parts.map(parseIPv4Number);
    if (nums.some(Number.isNaN)) return null;
    if (nums.slice(0, -1).some((n) => n > 255) || nums[nums.length - 1] >= 256 ** (5 - nums.length)) return null;
    let ip = nums[nums.length - 1];
    for (let i = 0; i < nums.length - 1; i++) ip += nums[i] * 256 ** (3 - i);
    return [ip >>> 24, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join('.');
  }
  // an IPv6 address in its shortest form (the longest run of zeros as ::)
  function parseIPv6(s) {
    let head = s, tail = '';
    const dc = s.indexOf('::');
    if (dc >= 0) { head = s.slice(0, dc); tail = s.slice(dc + 2); if (tail.includes('::')) return null; }
    const groups = (part) => {
      if (part === '') return [];
      const out = [];
      const items = part.split(':');
      for (let i = 0; i < items.length; i++) {
        const it = items[i];
        if (i === items.length - 1 && it.includes('.')) {
          const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(it) ? it.split('.').map(Number) : null;
          if (!v4 || v4.some((n) => n > 255)) return null;
          out.push(v4[0] * 256 + v4[1], v4[2] * 256 + v4[3]);
        } else {
          if (!/^[0-9a-fA-F]{1,4}$/.test(it)) return null;
          out.push(parseInt(it, 16));
        }
      }
      return out;
    };
    const h = groups(head), t = groups(tail);
    if (!h || !t) return null;
    if (dc < 0 ? h.length !== 8 : h.length + t.length > 7) return null;
    const all = [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
    let best = -1, bestLen = 1;
    for (let i = 0; i < 8;) {
      let j = i;
      while (j < 8 && all[j] === 0) j++;
      if (j - i > bestLen) { best = i; bestLen = j - i; }
      i = j === i ? i + 1 : j;
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === best) { out += i === 0 ? '::' : ':'; i += bestLen - 1; continue; }
      out += all[i].toString(16) + (i < 7 ? ':' : '');
    }
    return `[${out}]`;
  }
  const FORBIDDEN_HOST = /[\0\t\n\r #/:<>?@[\\\]^|%]/;
  function parseHost(input, special) {
    if (input.startsWith('[')) {
      if (!input.endsWith(']')) return null;
      return parseIPv6(input.slice(1, -1));
    }
    if (!special) return /[\0\t\n\r #/:<>?@[\\\]^|]/.test(input) ? null : encodeSet(input, C0);
    const domain = percentDecode(input).toLowerCase();
    if (domain === '' || FORBIDDEN_HOST.test(domain) || /[\x00-\x1f\x7f]/.test(domain)) return null;
    const last = domain.split('.').filter((p, i, a) => p !== '' || i !== a.length - 1).pop();
    if (last !== undefined && /^(0[xX][0-9a-fA-F]*|\d+)$/.test(last)) return parseIPv4(domain);
    return domain;
  }

  // ---- paths ------------------------------------------------------------------------
  const SINGLE_DOT = /^(\.|%2e)$/i, DOUBLE_DOT = /^(\.|%2e)(\.|%2e)$/i;
  // segments appended to base segments, dot segments resolved
  function resolvePath(baseSegs, input, special) {
    const segs = baseSegs.slice();
    const parts = input.split(special ? /[/\\]/ : '/');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i], lastPart = i === parts.length - 1;
      if (DOUBLE_DOT.test(p)) { if (segs.length) segs.pop(); if (lastPart) segs.push(''); }
      else if (SINGLE_DOT.test(p)) { if (lastPart) segs.push(''); }
      else segs.push(encodeSet(p, PATH));
    }
    return segs;
  }

  // ---- the parser: input (and base record) -> record ------------------------------------
  // record: { scheme, username, password, host (null: none), port, path
  //           (array of segments, or a string when opaque), query, fragment }
  function parse(input, base) {
    input = input.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '').replace(/[\t\n\r]/g, '');
    const r = { scheme: '', username: '', password: '', host: null, port: '', path: [], query: null, fragment: null };
    let rest = input;
    const hashAt = rest.indexOf('#');
    if (hashAt >= 0) { r.fragment = encodeSet(rest.slice(hashAt + 1), FRAGMENT); rest = rest.slice(0, hashAt); }
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
    if (m) {
      r.scheme = m[1].toLowerCase() + ':';
      rest = rest.slice(m[0].length);
      if (isSpecial(r.scheme) && base && base.scheme === r.scheme && !/^[/\\]/.test(rest)) {
        return relative(r, rest, base);
      }
    } else {
      if (!base) return null;
      if (typeof base.path === 'string') { // opaque base: only a fragment can be relative to it
        if (hashAt !== 0) return null;
        return { ...base, fragment: r.fragment };
      }
      r.scheme = base.scheme;
      return relative(r, rest, base);
    }
    const special = isSpecial(r.scheme);
    if (special ? /^[/\\]{2}/.test(rest) || r.scheme !== 'file:' : rest.startsWith('//')) {
      // file: takes exactly two slashes before its host, other special schemes any number
      rest = r.scheme === 'file:' ? rest.slice(2) : rest.replace(special ? /^[/\\]*/ : /^\/\//, '');
      return authority(r, rest, special);
    }
    if (r.scheme === 'file:') { r.host = ''; return pathAndQuery(r, rest, [], true); }
    if (rest.startsWith('/')) return pathAndQuery(r, rest.slice(1), [], false);
    const q = rest.indexOf('?');
    r.path = encodeSet(q >= 0 ? rest.slice(0, q) : rest, C0);
    if (q >= 0) r.query = encodeSet(rest.slice(q + 1), QUERY);
    return r;
  }

  function relative(r, rest, base) {
    const special = isSpecial(r.scheme);
    if (special ? /^[/\\]{2}/.test(rest) : rest.startsWith('//')) {
      return authority(r, rest.slice(2), special);
    }
    Object.assign(r, { username: base.username, password: base.password, host: base.host, port: base.port });
    if (special ? /^[/\\]/.test(rest) : rest.startsWith('/')) return pathAndQuery(r, rest.slice(1), [], special);
    if (rest === '') {
      r.path = base.path.slice();
      r.query = base.query;
      return r;
    }
    if (rest.startsWith('?')) {
      r.path = base.path.slice();
      r.query = encodeSet(rest.slice(1), special ? SPECIAL_QUERY : QUERY);
      return r;
    }
    return pathAndQuery(r, rest, base.path.slice(0, -1), special);
  }

  // authority, then path and query
  function authority(r, rest, special) {
    const end = rest.search(special ? /[/\\?]/ : /[/?]/);
    let auth = end < 0 ? rest : rest.slice(0, end);
    rest = end < 0 ? '' : rest.slice(end);
    const at = auth.lastIndexOf('@');
    if (at >= 0) {
      const info = auth.slice(0, at), colon = info.indexOf(':');
      r.username = encodeSet(colon >= 0 ? info.slice(0, colon) : info, USERINFO);
      r.password = colon >= 0 ? encodeSet(info.slice(colon + 1), USERINFO) : '';
      auth = auth.slice(at + 1);
    }
    const pm = /:(\d*)$/.exec(auth);
    let hostText = auth;
    if (pm && !auth.endsWith(']') && (!auth.startsWith('[') || auth.lastIndexOf(']') < pm.index)) {
      hostText = auth.slice(0, pm.index);
      if (pm[1] !== '') {
        const port = Number(pm[1]);
        if (port > 65535) return null;
        r.port = SPECIAL[r.scheme] === String(port) ? '' : String(port);
      }
    } else if (/:[^\]]*$/.test(auth) && !auth.startsWith('[')) {
      return null; // a port that is not digits
    }
    if (r.scheme === 'file:') {
      const h = hostText === '' ? '' : parseHost(hostText, true);
      if (h === null) return null;
      r.host = h === 'localhost' ? '' : h;
    } else {
      if (hostText === '' && special) return null;
      const h = parseHost(hostText, special);
      if (h === null) return null;
      r.host = h;
    }
    if (rest.startsWith('?') || rest === '') return pathAndQuery(r, rest, [], special);
    return pathAndQuery(r, rest.slice(1), [], special);
  }

  function pathAndQuery(r, rest, baseSegs, special) {
    const q = rest.indexOf('?');
    const pathText = q >= 0 ? rest.slice(0, q) : rest;
    if (q >= 0) r.query = encodeSet(rest.slice(q + 1), special ? SPECIAL_QUERY : QUERY);
    if (pathText === '' && q === 0 && baseSegs.length === 0) r.path = special ? [''] : [];
    else r.path = pathText === '' && baseSegs.length === 0 && !special ? [] : resolvePath(baseSegs, pathText, special);
    if (special && r.path.length === 0) r.path = [''];
    return r;
  }

  const pathString = (r) => typeof r.path === 'string' ? r.path
    : r.host === null && r.path.length > 1 && r.path[0] === '' ? '/.' + '/' + r.path.join('/') : (r.path.length ? '/' + r.path.join('/') : '');
  function serialize(r, noFragment) {
    let s = r.scheme;
    if (r.host !== null) {
      s += '//';
      if (r.username !== '' || r.password !== '') s += r.username + (r.password !== '' ? ':' + r.password : '') + '@';
      s += r.host + (r.port !== '' ? ':' + r.port : '');
    }
    s += pathString(r);
    if (r.query !== null) s += '?' + r.query;
    if (!noFragment && r.fragment !== null) s += '#' + r.fragment;
    return s;
  }

  // ---- URLSearchParams -------------------------------------------------------------
  const formEncode = (s) => encodeURIComponent(String(s).toWellFormed())
    .replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()).replace(/%20/g, '+');
  const formDecode = (s) => percentDecode(s.replace(/\+/g, ' '));
  function parseForm(s) {
    const list = [];
    for (const part of s.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      list.push(eq >= 0 ? [formDecode(part.slice(0, eq)), formDecode(part.slice(eq + 1))] : [formDecode(part), '']);
    }
    return list;
  }
  let linking = null; // the URL a URLSearchParams being made belongs to

  class URLSearchParams {
    #list = [];
    #url = linking;
    constructor(init = undefined) {
      if (init === undefined || init === null) return;
      if (typeof init === 'object' || typeof init === 'function') {
        if (typeof init[Symbol.iterator] === 'function') {
          for (const pair of init) {
            const p = [...pair];
            if (p.length !== 2) throw nodeError(TypeError, 'ERR_INVALID_TUPLE', 'Each query pair must be an iterable [name, value] tuple');
            this.#list.push([String(p[0]), String(p[1])]);
          }
        } else {
          for (const k of Object.keys(init)) this.#list.push([k, String(init[k])]);
        }
      } else {
        const s = String(init);
        this.#list = parseForm(s.startsWith('?') ? s.slice(1) : s);
      }
    }
    static reset(p, query) { p.#list = query ? parseForm(query) : []; } // used by URL only
    #update() { if (this.#url) setQuery(this.#url, this.#list.length ? this.toString() : null); }
    get size() { return this.#list.length; }
    append(name, value) { this.#list.push([String(name), String(value)]); this.#update(); }
    delete(name, value) {
      name = String(name);
      this.#list = this.#list.filter(([k, v]) => k !== name || (value !== undefined && v !== String(value)));
      this.#update();
    }
    get(name) { name = String(name); const e = this.#list.find(([k]) => k === name); return e ? e[1] : null; }
    getAll(name) { name = String(name); return this.#list.filter(([k]) => k === name).map(([, v]) => v); }
    has(name, value) { name = String(name); return this.#list.some(([k, v]) => k === name && (value === undefined || v === String(value))); }
    set(name, value) {
      name = String(name);
      const i = this.#list.findIndex(([k]) => k === name);
      if (i < 0) this.#list.push([name, String(value)]);
      else this.#list = [...this.#list.slice(0, i), [name, String(value)], ...this.#list.slice(i + 1).filter(([k]) => k !== name)];
      this.#update();
    }
    sort() {
      const codeUnits = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
      this.#list = this.#list.map((e, i) => [e, i]).sort((a, b) => codeUnits(a[0][0], b[0][0]) || a[1] - b[1]).map(([e]) => e);
      this.#update();
    }
    forEach(fn, thisArg) { for (const [k, v] of this.#list.slice()) fn.call(thisArg, v, k, this); }
    *entries() { for (const [k, v] of this.#list.slice()) yield [k, v]; }
    *keys() { for (const [k] of this.#list.slice()) yield k; }
    *values() { for (const [, v] of this.#list.slice()) yield v; }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return this.#list.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&'); }
    [CUSTOM](depth, options, inspect) {
      if (this.#list.length === 0) return 'URLSearchParams {}';
      return `URLSearchParams { ${this.#list.map(([k, v]) => `${inspect(k)} => ${inspect(v)}`).join(', ')} }`;
    }
    get [Symbol.toStringTag]() { return 'URLSearchParams'; }
  }
  const resetParams = URLSearchParams.reset;
  delete URLSearchParams.reset;

  // ---- URL ----------------------------------------------------------------------------
  const InspectURL = (() => class URL {})();
  let setQuery;
  class URL {
    #r; #params = null;
    constructor(input, base = undefined) {
      if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "url" argument must be specified');
      input = String(input);
      let b = null;
      if (base !== undefined) {
        b = parse(String(base), null);
        if (!b) throw invalid(String(base));
      }
      const r = parse(input, b);
      if (!r) throw invalid(input);
      this.#r = r;
    }
    static canParse(input, base = undefined) { try { new URL(input, base); return true; } catch { return false; } }
    static setQuery(u, q) { u.#r.query = q; } // used by URLSearchParams only
    get href() { return serialize(this.#r); }
    set href(v) { const r = parse(String(v), null); if (!r) throw invalid(String(v)); this.#r = r; this.#sync(); }
    get origin() {
      const r = this.#r;
      if (r.scheme === 'blob:') { try { return new URL(pathString(r)).origin; } catch { return 'null'; } }
      if (!isSpecial(r.scheme) || r.scheme === 'file:') return 'null';
      return `${r.scheme}//${r.host}${r.port !== '' ? ':' + r.port : ''}`;
    }
    get protocol() { return this.#r.scheme; }
    set protocol(v) {
      const m = /^([a-zA-Z][a-zA-Z0-9+.-]*)/.exec(String(v));
      if (!m) return;
      const s = m[1].toLowerCase() + ':';
      if (isSpecial(s) !== isSpecial(this.#r.scheme) || (s === 'file:' && (this.#r.username || this.#r.port))) return;
      this.#r.scheme = s;
      if (SPECIAL[s] === this.#r.port) this.#r.port = '';
    }
    get username() { return this.#r.username; }
    set username(v) { if (this.#r.host) this.#r.username = encodeSet(String(v), USERINFO); }
    get password() { return this.#r.password; }
    set password(v) { if (this.#r.host) this.#r.password = encodeSet(String(v), USERINFO); }
    get host() { const r = this.#r; return r.host === null ? '' : r.host + (r.port !== '' ? ':' + r.port : ''); }
    set host(v) { this.#setAuthority(String(v), true); }
    get hostname() { return this.#r.host === null ? '' : this.#r.host; }
    set hostname(v) { this.#setAuthority(String(v).replace(/:.*$/, ''), false); }
    get port() { return this.#r.port; }
    set port(v) {
      const r = this.#r;
      if (r.host === null || r.host === '' || r.scheme === 'file:') return;
      v = String(v);
      if (v === '') { r.port = ''; return; }
      const m = /^\d+/.exec(v);
      if (!m || Number(m[0]) > 65535) return;
      r.port = SPECIAL[r.scheme] === String(Number(m[0])) ? '' : String(Number(m[0]));
    }
    get pathname() { return pathString(this.#r); }
    set pathname(v) {
      const r = this.#r;
      if (typeof r.path === 'string') return;
      v = String(v);
      const special = isSpecial(r.scheme);
      r.path = resolvePath([], special ? v.replace(/^[/\\]/, '') : v.replace(/^\//, ''), special);
    }
    get search() { const q = this.#r.query; return q === null || q === '' ? '' : '?' + q; }
    set search(v) {
      v = String(v);
      if (v.startsWith('?')) v = v.slice(1);
      this.#r.query = v === '' ? null : encodeSet(v, isSpecial(this.#r.scheme) ? SPECIAL_QUERY : QUERY);
      this.#sync();
    }
    get searchParams() {
      if (!this.#params) {
        linking = this;
        try { this.#params = new URLSearchParams(this.#r.query || ''); } finally { linking = null; }
      }
      return this.#params;
    }
    get hash() { const f = this.#r.fragment; return f === null || f === '' ? '' : '#' + f; }
    set hash(v) { v = String(v); if (v.startsWith('#')) v = v.slice(1); this.#r.fragment = v === '' ? null : encodeSet(v, FRAGMENT); }
    toString() { return serialize(this.#r); }
    toJSON() { return serialize(this.#r); }
    #sync() { if (this.#params) resetParams(this.#params, this.#r.query); }
    #setAuthority(v, withPort) {
      const r = this.#r;
      if (typeof r.path === 'string') return;
      const probe = parse(`${r.scheme}//${v}/`, null);
      if (!probe || (probe.host === '' && r.scheme !== 'file:')) return;
      r.host = probe.host;
      if (withPort && probe.port !== '') r.port = probe.port;
    }
    [CUSTOM](depth, options, inspect) {
      const o = new InspectURL();
      for (const k of ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname',
        'search', 'searchParams', 'hash']) o[k] = this[k];
      return inspect(o, options);
    }
    get [Symbol.toStringTag]() { return 'URL'; }
  }
  setQuery = URL.setQuery;
  delete URL.setQuery;

  define(globalThis, 'URL', URL);
  define(globalThis, 'URLSearchParams', URLSearchParams);
  Object.assign(shared, { URL, URLSearchParams, percentDecode });
})
