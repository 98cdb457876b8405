// node's globals, as node 20 has them: Buffer, TextEncoder/TextDecoder,
// atob/btoa, URL/URLSearchParams, structuredClone, crypto (randomUUID,
// getRandomValues, subtle.digest), AbortController/AbortSignal,
// Event/EventTarget, DOMException, setImmediate, process's additions and
// `global`. Byte loops are native (node_bytes.c); the rest is here. Nothing
// below may let guest code reach `native` or `shared`: the functions keep
// them in closures and never hand them to code the guest can replace.
(function (native, shared) {
  'use strict';

  const { define, process } = shared;
  const g = globalThis;
  const hasOwn = Object.prototype.hasOwnProperty;
  const nodeError = (Ctor, code, message) => {
    const e = new Ctor(message);
    e.code = code;
    return e;
  };
  const argType = (name, expected, v) => nodeError(TypeError, 'ERR_INVALID_ARG_TYPE',
    `The "${name}" argument must be ${expected}. Received ${v === null ? 'null' : typeof v === 'object' ? `an instance of ${(v.constructor && v.constructor.name) || 'Object'}` : `type ${typeof v} (${shared.inspect(v)})`}`);

  // ---- DOMException -----------------------------------------------------
  const DOM_CODES = { IndexSizeError: 1, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidCharacterError: 5, AbortError: 20, TimeoutError: 23, DataCloneError: 25,
    QuotaExceededError: 22 };
  class DOMException extends Error {
    constructor(message = '', name = 'Error') {
      super(String(message));
      define(this, 'name', String(name));
    }
    get code() { return DOM_CODES[this.name] || 0; }
  }

  // ---- Buffer ---------------------------------------------------------------
  // A Buffer is a Uint8Array whose prototype is Buffer.prototype (node's
  // FastBuffer); typed-array methods that make new arrays (subarray, map,
  // filter) make Buffers through Buffer[Symbol.species].
  class FastBuffer extends Uint8Array {}
  function normEncoding(enc) {
    if (enc === undefined || enc === null) return 'utf8';
    const e = String(enc).toLowerCase();
    switch (e) {
      case 'utf8': case 'utf-8': return 'utf8';
      case 'hex': case 'base64': case 'base64url': case 'latin1': case 'ascii': return e;
      case 'binary': return 'latin1';
      case 'ucs2': case 'ucs-2': case 'utf16le': case 'utf-16le': return 'utf16le';
      default: return null;
    }
  }
  function encodingOf(enc) {
    const e = normEncoding(enc);
    if (e === null) throw nodeError(TypeError, 'ERR_UNKNOWN_ENCODING', `Unknown encoding: ${enc}`);
    return e;
  }
  const fromAB = (ab) => new FastBuffer(ab);
  function utf16Encode(s) {
    const b = new FastBuffer(s.length * 2);
    for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); b[2 * i] = c & 255; b[2 * i + 1] = c >> 8; }
    return b;
  }
  function utf16Decode(u8) {
    let s = '';
    for (let i = 0; i + 1 < u8.length; i += 2) s += String.fromCharCode(u8[i] | (u8[i + 1] << 8));
    return s;
  }
  // a string's bytes in an encoding, as an ArrayBuffer or a Buffer
  function encode(s, enc) {
    switch (enc) {
      case 'utf8': return fromAB(native.utf8Encode(s));
      case 'hex': return fromAB(native.hexDecode(s));
      case 'base64': case 'base64url': return fromAB(native.base64Decode(s, false));
      case 'latin1': return fromAB(native.latin1Encode(s));
      case 'ascii': return fromAB(native.latin1Encode(s));
      default: return utf16Encode(s);
    }
  }
  function decode(u8, enc) {
    switch (enc) {
      case 'utf8': return native.utf8Decode(u8, false);
      case 'hex': return native.hexEncode(u8);
      case 'base64': return native.base64Encode(u8, false);
      case 'base64url': return native.base64Encode(u8, true);
      case 'latin1': return native.latin1Decode(u8, 0xff);
      case 'ascii': return native.latin1Decode(u8, 0x7f);
      default: return utf16Decode(u8);
    }
  }

  function Buffer(arg, encodingOrOffset, length) {
    if (typeof arg === 'number') return Buffer.alloc(arg);
    return Buffer.from(arg, encodingOrOffset, length);
  }
  Object.setPrototypeOf(Buffer, Uint8Array);
  Buffer.prototype = FastBuffer.prototype;
  define(FastBuffer.prototype, 'constructor', Buffer);
  const isBuffer = (b) => b instanceof FastBuffer;
  const isView = ArrayBuffer.isView;
  const checkSize = (n) => {
    if (typeof n !== 'number') throw argType('size', 'of type number', n);
    if (!(n >= 0 && n <= 2 ** 32)) {
      throw nodeError(RangeError, 'ERR_OUT_OF_RANGE',
        `The value of "size" is out of range. It must be >= 0 && <= ${2 ** 32}. Received ${n}`);
    }
  };
  Object.assign(Buffer, {
    poolSize: 8192,
    from(v, encOrOffset, length) {
      if (typeof v === 'string') return encode(v, encodingOf(encOrOffset));
      if (shared.isArrayBuffer(v) || v instanceof SharedArrayBuffer) {
        const off = encOrOffset === undefined ? 0 : Number(encOrOffset) || 0;
        const len = length === undefined ? v.byteLength - off : Number(length) || 0;
        if (off > v.byteLength) {
          throw nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', '"offset" is outside of buffer bounds');
        }
        if (off + len > v.byteLength) {
          throw nodeError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', '"length" is outside of buffer bounds');
        }
        return new FastBuffer(v, off, len);
      }
      if (isView(v)) {
        const b = new FastBuffer(v.byteLength);
        b.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
        if (!(v instanceof Uint8Array) && !(v instanceof Int8Array) && !(v instanceof Uint8ClampedArray) &&
            !(v instanceof DataView)) {
          return FastBuffer.from(v, (x) => x & 255); // node copies element values, truncated to bytes
        }
        return b;
      }
      if (v !== null && typeof v === 'object') {
        if (typeof v[Symbol.toPrimitive] === 'function' || (typeof v.valueOf === 'function' && v.valueOf() !== v)) {
          const p = typeof v[Symbol.toPrimitive] === 'function' ? v[Symbol.toPrimitive]('string') : v.valueOf();
          if (typeof p === 'string' || (p !== null && typeof p === 'object')) return Buffer.from(p, encOrOffset, length);
        }
        if (v.type === 'Buffer' && Array.isArray(v.data)) return FastBuffer.from(v.data, (x) => x & 255);
        if (typeof v.length === 'number' || Array.isArray(v)) {
          const b = new FastBuffer(v.length >>> 0);
          for (let i = 0; i < b.length; i++) b[i] = v[i] & 255;
          return b;
        }
      }
      throw argType('first', 'of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object', v);
    },
    alloc(size, fill, enc) {
      checkSize(size);
      const b = new FastBuffer(size);
      if (fill !== undefined && fill !== 0 && size > 0) b.fill(fill, 0, b.length, enc);
      return b;
    },
    allocUnsafe(size) { checkSize(size); return new FastBuffer(size); },
    allocUnsafeSlow(size) { checkSize(size); return new FastBuffer(size); },
    isBuffer,
    isEncoding: (e) => typeof e === 'string' && e !== '' && normEncoding(e) !== null,
    byteLength(s, enc) {
      if (typeof s !== 'string') {
        if (isView(s) || shared.isArrayBuffer(s)) return s.byteLength;
        throw argType('string', 'of type string or an instance of Buffer or ArrayBuffer', s);
      }
      switch (normEncoding(enc) || 'utf8') {
        case 'utf8': return native.utf8Length(s);
        case 'hex': return s.length >>> 1;
        case 'base64': case 'base64url': return native.base64Decode(s, false).byteLength;
        case 'utf16le': return s.length * 2;
        default: return s.length;
      }
    },
    concat(list, total) {
      if (!Array.isArray(list)) throw argType('list', 'an instance of Array', list);
      if (total === undefined) { total = 0; for (const b of list) total += b.length; }
      const out = new FastBuffer(total);
      let off = 0;
      for (let i = 0; i < list.length && off < total; i++) {
        const b = list[i];
        if (!(b instanceof Uint8Array)) throw argType(`list[${i}]`, 'an instance of Buffer or Uint8Array', b);
        const part = b.length > total - off ? b.subarray(0, total - off) : b;
        out.set(part, off);
        off += part.length;
      }
      return out;
    },
    compare(a, b) { return native.compare(a, b); },
  });

  const range = (b, start, end) => {
    start = start === undefined ? 0 : Math.max(0, Math.min(b.length, Math.trunc(start) || 0));
    end = end === undefined ? b.length : Math.max(start, Math.min(b.length, Math.trunc(end) || 0));
    return start === 0 && end === b.length ? b : b.subarray(start, end);
  };
  const checkOffset = (b, off, size) => {
    if (off === undefined) off = 0;
    if (typeof off !== 'number') throw argType('offset', 'of type number', off);
    if (!Number.isInteger(off) || off < 0 || off + size > b.length) {
      throw nodeError(RangeError, 'ERR_OUT_OF_RANGE',
        `The value of "offset" is out of range. It must be >= 0 and <= ${b.length - size}. Received ${off}`);
    }
    return off;
  };
  const view = (b) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const proto = {
    toString(enc, start, end) {
      const e = enc === undefined ? 'utf8' : encodingOf(enc);
      return decode(range(this, start, end), e);
    },
    toJSON() { return { type: 'Buffer', data: Array.from(this) }; },
    equals(other) {
      if (!(other instanceof Uint8Array)) throw argType('otherBuffer', 'an instance of Buffer or Uint8Array', other);
      return native.compare(this, other) === 0;
    },
    compare(target, tStart, tEnd, sStart, sEnd) {
      if (!(target instanceof Uint8Array)) throw argType('target', 'an instance of Buffer or Uint8Array', target);
      return native.compare(range(this, sStart, sEnd), range(target, tStart, tEnd));
    },
    slice(start, end) {
      const n = this.length;
      start = start === undefined ? 0 : Math.trunc(start) || 0;
      end = end === undefined ? n : Math.trunc(end) || 0;
      if (start < 0) start = Math.max(0, n + start);
      if (end < 0) end = Math.max(0, n + end);
      return this.subarray(Math.min(start, n), Math.max(Math.min(start, n), Math.min(end, n)));
    },
    write(s, offset, length, enc) {
      if (typeof offset === 'string') { enc = offset; offset = 0; length = undefined; }
      else if (typeof length === 'string') { enc = length; length = undefined; }
      offset = offset === undefined ? 0 : offset >>> 0;
      const bytes = encode(String(s), encodingOf(enc));
      const n = Math.min(bytes.length, this.length - offset, length === undefined ? Infinity : length >>> 0);
      this.set(n < bytes.length ? bytes.subarray(0, n) : bytes, offset);
      return n;
    },
    fill(v, start, end, enc) {
      if (typeof start === 'string') { enc = start; start = 0; end = this.length; }
      else if (typeof end === 'string') { enc = end; end = this.length; }
      start = start === undefined ? 0 : start >>> 0;
      end = end === undefined ? this.length : Math.min(this.length, end >>> 0);
      if (typeof v === 'number' || typeof v === 'boolean') { Uint8Array.prototype.fill.call(this, Number(v) & 255, start, end); return this; }
      const bytes = typeof v === 'string' ? encode(v, encodingOf(enc)) : v;
      if (bytes.length === 0) {
        if (typeof v === 'string' && v !== '') throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'value' is invalid. Received '${v}'`);
        Uint8Array.prototype.fill.call(this, 0, start, end);
        return this;
      }
      for (let i = start, j = 0; i < end; i++, j = (j + 1) % bytes.length) this[i] = bytes[j];
      return this;
    },
    indexOf(v, from, enc) { return bufferIndexOf(this, v, from, enc, false); },
    lastIndexOf(v, from, enc) { return bufferIndexOf(this, v, from, enc, true); },
    includes(v, from, enc) { return bufferIndexOf(this, v, from, enc, false) !== -1; },
    copy(target, tStart = 0, sStart = 0, sEnd = this.length) {
      tStart = Math.max(0, tStart | 0);
      sStart = Math.max(0, sStart | 0);
      sEnd = Math.min(this.length, sEnd | 0);
      const n = Math.max(0, Math.min(sEnd - sStart, target.length - tStart));
      if (n > 0) target.set(this.subarray(sStart, sStart + n), tStart);
      return n;
    },
    swap16() { for (let i = 0; i + 1 < this.length; i += 2) [this[i], this[i + 1]] = [this[i + 1], this[i]]; return this; },
    toLocaleString(enc, start, end) { return this.toString(enc, start, end); },
    readBigUInt64LE(o) { return view(this).getBigUint64(checkOffset(this, o, 8), true); },
    readBigUInt64BE(o) { return view(this).getBigUint64(checkOffset(this, o, 8), false); },
    readBigInt64LE(o) { return view(this).getBigInt64(checkOffset(this, o, 8), true); },
    readBigInt64BE(o) { return view(this).getBigInt64(checkOffset(this, o, 8), false); },
    writeBigUInt64LE(v, o) { view(this).setBigUint64(o = checkOffset(this, o, 8), v, true); return o + 8; },
    writeBigUInt64BE(v, o) { view(this).setBigUint64(o = checkOffset(this, o, 8), v, false); return o + 8; },
    writeBigInt64LE(v, o) { view(this).setBigInt64(o = checkOffset(this, o, 8), v, true); return o + 8; },
    writeBigInt64BE(v, o) { view(this).setBigInt64(o = checkOffset(this, o, 8), v, false); return o + 8; },
  };
  // readUInt8 ... writeDoubleBE through DataView, with node's range checks
  const ACCESSORS = [['UInt8', 'Uint8', 1, 0, 255], ['Int8', 'Int8', 1, -128, 127],
    ['UInt16', 'Uint16', 2, 0, 0xffff], ['Int16', 'Int16', 2, -0x8000, 0x7fff],
    ['UInt32', 'Uint32', 4, 0, 0xffffffff], ['Int32', 'Int32', 4, -0x80000000, 0x7fffffff],
    ['Float', 'Float32', 4], ['Double', 'Float64', 8]];
  for (const [name, dv, size, min, max] of ACCESSORS) {
    const get = DataView.prototype[`get${dv}`], set = DataView.prototype[`set${dv}`];
    for (const [suffix, little] of size === 1 ? [['', false]] : [['LE', true], ['BE', false]]) {
      proto[`read${name}${suffix}`] = function (o) { return get.call(view(this), checkOffset(this, o, size), little); };
      proto[`write${name}${suffix}`] = function (v, o) {
        o = checkOffset(this, o, size);
        v = +v;
        if (min !== undefined && !(v >= min && v <= max)) {
          throw nodeError(RangeError, 'ERR_OUT_OF_RANGE',
            `The value of "value" is out of range. It must be >= ${min} and <= ${max}. Received ${v}`);
        }
        set.call(view(this), o, v, little);
        return o + size;
      };
      if (name.startsWith('UInt')) { // node's lower-case aliases: readUint8, writeUint32LE...
        proto[`readUint${name.slice(4)}${suffix}`] = proto[`read${name}${suffix}`];
        proto[`writeUint${name.slice(4)}${suffix}`] = proto[`write${name}${suffix}`];
      }
    }
  }
  for (const k of Object.keys(proto)) define(FastBuffer.prototype, k, proto[k]);

  function bufferIndexOf(b, v, from, enc, last) {
    if (typeof from === 'string') { enc = from; from = undefined; }
    let needle;
    if (typeof v === 'number') needle = [v & 255];
    else if (typeof v === 'string') needle = encode(v, encodingOf(enc));
    else if (v instanceof Uint8Array) needle = v;
    else throw argType('value', 'one of type number or string or an instance of Buffer or Uint8Array', v);
    const n = b.length, m = needle.length;
    let start = from === undefined ? (last ? n - m : 0) : Math.trunc(+from) || 0;
    if (start < 0) start += n;
    if (m === 0) return Math.min(Math.max(start, 0), n);
    const step = last ? -1 : 1;
    for (let i = Math.max(0, Math.min(start, n - m)); i >= 0 && i <= n - m; i += step) {
      let j = 0;
      while (j < m && b[i + j] === needle[j]) j++;
      if (j === m) return i;
    }
    return -1;
  }

  // ---- TextEncoder / TextDecoder ---------------------------------------------
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(s = '') { return new Uint8Array(native.utf8Encode(String(s))); }
    encodeInto(s, dest) {
      s = String(s);
      let read = 0, written = 0;
      for (const ch of s) { // whole code points, as long as they fit
        const bytes = native.utf8Encode(ch);
        if (written + bytes.byteLength > dest.length) break;
        dest.set(new Uint8Array(bytes), written);
        written += bytes.byteLength;
        read += ch.length;
      }
      return { read, written };
    }
  }
  const UTF8_LABELS = ['utf-8', 'utf8', 'unicode-1-1-utf-8'];
  const UTF16_LABELS = ['utf-16le', 'utf-16', 'ucs-2', 'unicode', 'csunicode', 'iso-10646-ucs-2', 'unicodefeff'];
  const LATIN1_LABELS = ['latin1', 'iso-8859-1', 'ascii', 'us-ascii', 'windows-1252', 'l1', 'iso8859-1', 'cp1252'];
  class TextDecoder {
    #encoding; #fatal; #ignoreBOM;
    constructor(label = 'utf-8', options = {}) {
      const l = String(label).trim().toLowerCase();
      if (UTF8_LABELS.includes(l)) this.#encoding = 'utf-8';
      else if (UTF16_LABELS.includes(l)) this.#encoding = 'utf-16le';
      else if (LATIN1_LABELS.includes(l)) this.#encoding = 'windows-1252';
      else throw nodeError(RangeError, 'ERR_ENCODING_NOT_SUPPORTED', `The "${label}" encoding is not supported`);
      this.#fatal = Boolean(options && options.fatal);
      this.#ignoreBOM = Boolean(options && options.ignoreBOM);
    }
    get encoding() { return this.#encoding; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input, options) {
      if (input === undefined) return '';
      let bytes;
      if (shared.isArrayBuffer(input)) bytes = new Uint8Array(input);
      else if (isView(input)) bytes = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
      else throw argType('input', 'an instance of ArrayBuffer or ArrayBufferView', input);
      if (this.#encoding === 'utf-16le') {
        const s = utf16Decode(bytes);
        return !this.#ignoreBOM && s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
      }
      if (this.#encoding === 'windows-1252') return native.latin1Decode(bytes, 0xff);
      if (!this.#ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        bytes = bytes.subarray(3);
      }
      return native.utf8Decode(bytes, this.#fatal);
    }
  }

  // ---- atob / btoa -------------------------------------------------------------
  function btoa(s) {
    if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "data" argument must be specified');
    s = String(s);
    for (let i = 0; i < s.length; i++) {
      if (s.charCodeAt(i) > 255) throw new DOMException('Invalid character', 'InvalidCharacterError');
    }
    return native.base64Encode(native.latin1Encode(s), false);
  }
  function atob(s) {
    if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "data" argument must be specified');
    const bytes = native.base64Decode(String(s), true);
    if (bytes === null) throw new DOMException('The string to be decoded is not correctly encoded.', 'InvalidCharacterError');
    return native.latin1Decode(new Uint8Array(bytes), 0xff);
  }

  // ---- structuredClone ------------------------------------------------------------
  const ERRORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  function structuredClone(value, options) {
    const seen = new Map();
    const fail = (v) => {
      let text;
      try { text = typeof v === 'function' ? Function.prototype.toString.call(v) : typeof v === 'symbol' ? v.toString() : shared.inspect(v); } catch { text = 'value'; }
      throw new DOMException(`${text} could not be cloned.`, 'DataCloneError');
    };
    function clone(v) {
      if (typeof v === 'symbol' || typeof v === 'function') fail(v);
      if (v === null || typeof v !== 'object') return v;
      if (seen.has(v)) return seen.get(v);
      let out;
      const tag = Object.prototype.toString.call(v);
      if (Array.isArray(v)) {
        out = new Array(v.length);
        seen.set(v, out);
        for (const k of Object.keys(v)) out[k] = clone(v[k]);
        return out;
      }
      if (shared.isDate(v)) out = new Date(v.getTime());
      else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
      else if (shared.isArrayBuffer(v)) out = v.slice(0);
      else if (isView(v)) {
        const buf = clone(v.buffer);
        const C = v instanceof DataView ? DataView : isBuffer(v) ? Uint8Array : Object.getPrototypeOf(Object.getPrototypeOf(v)) === Object.getPrototypeOf(Uint8Array.prototype) ? v.constructor : Uint8Array;
        out = C === DataView ? new DataView(buf, v.byteOffset, v.byteLength) : new C(buf, v.byteOffset, v.length);
      } else if (shared.isMap(v)) {
        out = new Map();
        seen.set(v, out);
        for (const [k, x] of v) out.set(clone(k), clone(x));
        return out;
      } else if (shared.isSet(v)) {
        out = new Set();
        seen.set(v, out);
        for (const x of v) out.add(clone(x));
        return out;
      } else if (v instanceof Error) {
        const C = hasOwn.call(ERRORS, v.name) ? ERRORS[v.name] : Error;
        out = new C(v.message);
        seen.set(v, out);
        if (typeof v.stack === 'string') define(out, 'stack', v.stack);
        if ('cause' in v) define(out, 'cause', clone(v.cause));
        return out;
      } else if (tag === '[object Boolean]' || tag === '[object Number]' || tag === '[object String]' || tag === '[object BigInt]') {
        out = Object(v.valueOf());
      } else if (tag === '[object Object]' && native.promiseState(v) < 0 && !(v instanceof WeakMap) && !(v instanceof WeakSet)) {
        out = {};
        seen.set(v, out);
        for (const k of Object.keys(v)) out[k] = clone(v[k]);
        return out;
      } else {
        fail(v);
      }
      seen.set(v, out);
      return out;
    }
    if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "value" argument must be specified');
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      throw argType('options', 'of type object', options);
    }
    return clone(value);
  }

  // ---- crypto (Web Crypto's part that needs no keys) ------------------------------------
  const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    BigInt64Array, BigUint64Array];
  function getRandomValues(a) {
    if (!INTEGER_ARRAYS.some((C) => a instanceof C)) {
      throw new DOMException("The data argument must be an integer-type TypedArray", 'TypeMismatchError');
    }
    if (a.byteLength > 65536) {
      throw new DOMException(`The ArrayBufferView's byte length (${a.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, 'QuotaExceededError');
    }
    native.randomFill(a);
    return a;
  }
  const hex = (b) => native.hexEncode(b);
  function randomUUID() {
    const b = new Uint8Array(16);
    native.randomFill(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = hex(b);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  const DIGESTS = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };
  const toBytes = (data, name) => {
    if (shared.isArrayBuffer(data)) return new Uint8Array(data);
    if (isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    throw argType(name, 'an instance of ArrayBuffer, Buffer, TypedArray, or DataView', data);
  };
  const subtle = {
    async digest(algorithm, data) {
      const name = String(typeof algorithm === 'object' && algorithm !== null ? algorithm.name : algorithm).toUpperCase();
      if (!hasOwn.call(DIGESTS, name)) throw new DOMException('Unrecognized algorithm name', 'NotSupportedError');
      return native.hash(DIGESTS[name], toBytes(data, 'data'));
    },
  };
  const crypto = { getRandomValues, randomUUID, subtle };

  // ---- Event / EventTarget / AbortController --------------------------------------------
  class Event {
    #type; #bubbles; #cancelable; #defaultPrevented = false; #target = null; #current = null; #stop = false;
    #timeStamp = native.now();
    constructor(type, options = {}) {
      if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "type" argument must be specified');
      this.#type = String(type);
      this.#bubbles = Boolean(options && options.bubbles);
      this.#cancelable = Boolean(options && options.cancelable);
    }
    get type() { return this.#type; }
    get bubbles() { return this.#bubbles; }
    get cancelable() { return this.#cancelable; }
    get defaultPrevented() { return this.#cancelable && this.#defaultPrevented; }
    get target() { return this.#target; }
    get currentTarget() { return this.#current; }
    get srcElement() { return this.#target; }
    get timeStamp() { return this.#timeStamp; }
    get isTrusted() { return false; }
    get eventPhase() { return this.#current ? 2 : 0; }
    get returnValue() { return !this.defaultPrevented; }
    composedPath() { return this.#current ? [this.#current] : []; }
    preventDefault() { this.#defaultPrevented = true; }
    stopPropagation() {}
    stopImmediatePropagation() { this.#stop = true; }
    static dispatch(ev, target, phase) { // used by EventTarget only
      if (phase === 0) { ev.#target = target; ev.#current = target; ev.#stop = false; }
      else if (phase === 1) return ev.#stop;
      else ev.#current = null;
      return false;
    }
  }
  const dispatchStep = Event.dispatch;
  delete Event.dispatch;
  class CustomEvent extends Event {
    #detail;
    constructor(type, options = {}) { super(type, options); this.#detail = options && options.detail !== undefined ? options.detail : null; }
    get detail() { return this.#detail; }
  }

  class EventTarget {
    #listeners = new Map();
    addEventListener(type, listener, options) {
      if (listener === null || listener === undefined) return;
      const once = Boolean(options && typeof options === 'object' && options.once);
      const signal = options && typeof options === 'object' ? options.signal : undefined;
      if (signal && signal.aborted) return;
      let list = this.#listeners.get(String(type));
      if (!list) this.#listeners.set(String(type), list = []);
      if (list.some((l) => l.listener === listener)) return;
      const entry = { listener, once };
      list.push(entry);
      if (signal) signal.addEventListener('abort', () => this.removeEventListener(type, listener), { once: true });
    }
    removeEventListener(type, listener) {
      const list = this.#listeners.get(String(type));
      if (!list) return;
      const i = list.findIndex((l) => l.listener === listener);
      if (i >= 0) list.splice(i, 1);
    }
    dispatchEvent(event) {
      if (!(event instanceof Event)) throw argType('event', 'an instance of Event', event);
      dispatchStep(event, this, 0);
      const list = (this.#listeners.get(event.type) || []).slice();
      for (const entry of list) {
        if (entry.once) this.removeEventListener(event.type, entry.listener);
        const l = entry.listener;
        if (typeof l === 'function') l.call(this, event);
        else if (l && typeof l.handleEvent === 'function') l.handleEvent(event);
        if (dispatchStep(event, this, 1)) break;
      }
      dispatchStep(event, this, 2);
      return !event.defaultPrevented;
    }
  }

  let makingSignal = false;
  class AbortSignal extends EventTarget {
    #aborted = false; #reason = undefined; #onabort = null; #onabortAdded = false;
    constructor() {
      if (!makingSignal) throw nodeError(TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', 'Illegal constructor');
      super();
    }
    // an event handler attribute: it runs in the order it was first set
    get onabort() { return this.#onabort; }
    set onabort(fn) {
      this.#onabort = typeof fn === 'function' ? fn : null;
      if (this.#onabortAdded) return;
      this.#onabortAdded = true;
      this.addEventListener('abort', (e) => { if (this.#onabort) this.#onabort.call(this, e); });
    }
    get aborted() { return this.#aborted; }
    get reason() { return this.#reason; }
    throwIfAborted() { if (this.#aborted) throw this.#reason; }
    static abort(reason) { const s = newSignal(); abortSignal(s, reason); return s; }
    static timeout(ms) {
      const s = newSignal();
      const t = shared.addTimer(() => abortSignal(s, new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms, [], false);
      t.unref(); // as node's: the signal alone does not keep the program running
      return s;
    }
    static any(signals) {
      const s = newSignal();
      for (const x of signals) {
        if (x.aborted) { abortSignal(s, x.reason); break; }
        x.addEventListener('abort', () => abortSignal(s, x.reason), { once: true });
      }
      return s;
    }
    static setAborted(s, reason) { // used by abortSignal only
      if (s.#aborted) return false;
      s.#aborted = true;
      s.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
      return true;
    }
  }
  const setAborted = AbortSignal.setAborted;
  delete AbortSignal.setAborted;
  function newSignal() { makingSignal = true; try { return new AbortSignal(); } finally { makingSignal = false; } }
  function abortSignal(s, reason) {
    if (!setAborted(s, reason)) return;
    s.dispatchEvent(new Event('abort'));
  }
  class AbortController {
    #signal = newSignal();
    get signal() { return this.#signal; }
    abort(reason) { abortSignal(this.#signal, reason); }
  }

  // ---- process.nextTick: its queue runs before the Promise jobs, as node's does (the C
  // loop calls hooks.runTicks, once told the queue has something, then the jobs, until
  // both are empty) ------------------------------------------------------------------------
  const ticks = [];
  shared.hooks.runTicks = () => {
    let n = 0;
    for (; ticks.length; n++) {
      const fn = ticks.shift(), args = ticks.shift();
      fn(...args);
    }
    return n;
  };

  // ---- process: what node programs read ---------------------------------------------
  const start = native.now();
  function hrtime(prev) {
    const ns = BigInt(Math.round(native.now() * 1e6));
    let s = Number(ns / 1000000000n), n = Number(ns % 1000000000n);
    if (prev) { s -= prev[0]; n -= prev[1]; if (n < 0) { s--; n += 1e9; } }
    return [s, n];
  }
  hrtime.bigint = () => BigInt(Math.round(native.now() * 1e6));
  const streamOf = (fd) => ({
    fd,
    isTTY: false,
    columns: 80,
    write(chunk, enc, cb) {
      if (typeof enc === 'function') cb = enc;
      native.write(fd, typeof chunk === 'string' ? chunk : native.utf8Decode(toBytes(chunk, 'chunk'), false));
      if (typeof cb === 'function') queueMicrotask(cb);
      return true;
    },
    end(chunk, enc, cb) { if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk, enc, cb); },
  });
  Object.assign(process, {
    argv: ['/usr/local/bin/node', '/app/main.js'],
    argv0: 'node',
    execArgv: [],
    execPath: '/usr/local/bin/node',
    platform: 'linux',
    arch: 'x64',
    pid: 1,
    ppid: 0,
    title: 'node',
    version: 'v20.0.0',
    versions: { node: '20.0.0', quickjs: '2025-04-26' },
    release: { name: 'node' },
    hrtime,
    uptime: () => (native.now() - start) / 1000,
    nextTick: (fn, ...args) => {
      if (typeof fn !== 'function') throw argType('callback', 'of type function', fn);
      if (ticks.length === 0) native.ticksQueued();
      ticks.push(fn, args);
    },
    memoryUsage() {
      const [rss, total, used] = native.memoryUsage();
      return { rss, heapTotal: total, heapUsed: used, external: 0, arrayBuffers: 0 };
    },
    stdout: streamOf(1),
    stderr: streamOf(2),
    emitWarning: (w) => native.write(2, `(node:1) ${typeof w === 'string' ? `Warning: ${w}` : `${w.name}: ${w.message}`}\n`),
  });
  process.memoryUsage.rss = () => native.memoryUsage()[0];

  // ---- setImmediate: after the Promise jobs, like a 0 ms timer ----------------------
  define(g, 'setImmediate', (fn, ...args) => shared.addTimer(fn, 0, args, false));
  define(g, 'clearImmediate', shared.clear);

  define(g, 'global', g);
  define(g, 'Buffer', Buffer);
  define(g, 'TextEncoder', TextEncoder);
  define(g, 'TextDecoder', TextDecoder);
  define(g, 'atob', atob);
  define(g, 'btoa', btoa);
  define(g, 'structuredClone', structuredClone);
  define(g, 'crypto', crypto);
  define(g, 'DOMException', DOMException);
  define(g, 'Event', Event);
  define(g, 'CustomEvent', CustomEvent);
  define(g, 'EventTarget', EventTarget);
  define(g, 'AbortController', AbortController);
  define(g, 'AbortSignal', AbortSignal);

  Object.assign(shared, { Buffer, FastBuffer, isBuffer, encode, decode, encodingOf, toBytes, nodeError, argType,
    randomUUID, getRandomValues, subtle });
})
