// node's stream module as far as programs use it with files and lines:
// Readable (flowing, paused, async iteration, pipe, Readable.from), Writable,
// Duplex, Transform, PassThrough, pipeline and finished (callback and
// stream/promises forms); fs.createReadStream / createWriteStream over the
// sandbox's files; readline over any Readable. Files are read whole when a
// stream opens (the sandbox's files are bounded by its quota) and handed out
// in highWaterMark chunks; there is no backpressure to wait for, since
// nothing here is slower than the program.
(function (native, shared) {
  'use strict';

  const { Buffer, FastBuffer, EventEmitter, StringDecoder, nodeError, argType, process } = shared;
  const fs = shared.fs;
  const later = (fn, ...args) => process.nextTick(fn, ...args);
  // a file opens in a later turn of the event loop, as node's does (after timers already due)
  const io = (fn) => shared.addTimer(fn, 0, [], false);
  const toChunk = (chunk, encoding) => (typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);

  // the end of any stream: its _destroy, then 'error' (if any) and 'close', on later ticks
  function destroy(stream, err) {
    if (stream.destroyed) return stream;
    stream.destroyed = true;
    stream._destroy(err || null, (e) => {
      if (e) later(() => stream.emit('error', e));
      later(() => stream.emit('close'));
    });
    return stream;
  }

  // ---- Readable ------------------------------------------------------------------------------------
  class Readable extends EventEmitter {
    constructor(options = {}) {
      super();
      this._readableState = { buffer: [], ended: false, endEmitted: false, flowing: null, scheduled: false,
        objectMode: !!(options.objectMode || options.readableObjectMode), decoder: null,
        highWaterMark: options.highWaterMark ?? (options.objectMode ? 16 : 65536) };
      this.destroyed = false;
      this.readable = true;
      if (typeof options.read === 'function') this._read = options.read;
      if (typeof options.destroy === 'function') this._destroy = options.destroy;
      if (options.encoding) this.setEncoding(options.encoding);
    }
    _read() {}
    _destroy(err, cb) { cb(err); }
    push(chunk, encoding) {
      const st = this._readableState;
      if (chunk === null) st.ended = true;
      else if (st.ended) this.destroy(nodeError(Error, 'ERR_STREAM_PUSH_AFTER_EOF', 'stream.push() after EOF'));
      else st.buffer.push(st.objectMode ? chunk : toChunk(chunk, encoding));
      this.#schedule();
      return !st.ended && st.buffer.length < (st.objectMode ? st.highWaterMark : 16);
    }
    unshift(chunk) { this._readableState.buffer.unshift(chunk); this.#schedule(); }
    _wake() { this.#schedule(); } // a source that was not ready has data now
    setEncoding(encoding) { this._readableState.decoder = new StringDecoder(encoding); return this; }
    get readableEncoding() { return this._readableState.decoder ? this._readableState.decoder.encoding : null; }
    get readableEnded() { return this._readableState.endEmitted; }
    get readableFlowing() { return this._readableState.flowing; }
    get readableObjectMode() { return this._readableState.objectMode; }
    get readableLength() { return this._readableState.buffer.length; }
    on(name, fn) {
      super.on(name, fn);
      const st = this._readableState;
      if (name === 'data' && st.flowing !== false) this.resume();
      if (name === 'readable') { st.flowing = false; this.#schedule(); }
      return this;
    }
    resume() { this._readableState.flowing = true; this.#schedule(); return this; }
    pause() { this._readableState.flowing = false; return this; }
    isPaused() { return this._readableState.flowing === false; }
    read() {
      const st = this._readableState;
      if (!st.buffer.length) { this.#pull(); if (!st.buffer.length) { this.#schedule(); return null; } }
      const chunks = st.objectMode ? [st.buffer.shift()] : st.buffer.splice(0);
      const out = st.objectMode ? chunks[0] : Buffer.concat(chunks);
      return st.decoder && !st.objectMode ? st.decoder.write(out) : out;
    }
    #pull() {
      const st = this._readableState;
      if (!st.ended && !this.destroyed) this._read(st.highWaterMark);
    }
    #schedule() {
      const st = this._readableState;
      if (st.scheduled) return;
      st.scheduled = true;
      later(() => { st.scheduled = false; this.#flow(); });
    }
    #flow() {
      const st = this._readableState;
      if (this.destroyed) return;
      if (st.flowing === false && this.listenerCount('readable')) {
        if (!st.buffer.length) this.#pull();
        if (st.buffer.length || st.ended) this.emit('readable');
      }
      while (st.flowing && !this.destroyed) {
        if (st.buffer.length) {
          const c = st.buffer.shift();
          this.emit('data', st.decoder && !st.objectMode ? st.decoder.write(c) : c);
          continue;
        }
        if (st.ended) break;
        this.#pull();
        if (!st.buffer.length) return; // an asynchronous source pushes later
      }
      if (st.ended && !st.buffer.length && !st.endEmitted && (st.flowing || st.flowing === false && this.listenerCount('readable'))) {
        if (st.decoder) { const rest = st.decoder.end(); if (rest && st.flowing) this.emit('data', rest); }
        st.endEmitted = true;
        this.readable = false;
        this.emit('end');
        this.destroy();
      }
    }
    destroy(err) { return destroy(this, err); }
    pipe(dest, { end = true } = {}) {
      this.on('data', (c) => dest.write(c));
      if (end) this.on('end', () => dest.end());
      dest.emit('pipe', this);
      return dest;
    }
    unpipe() { this.removeAllListeners('data'); return this; }
    async *[Symbol.asyncIterator]() {
      const chunks = [];
      let done = false, error = null, wake = null;
      const poke = () => { if (wake) { const w = wake; wake = null; w(); } };
      this.on('data', (c) => { chunks.push(c); poke(); });
      this.once('end', () => { done = true; poke(); });
      this.once('error', (e) => { error = e; poke(); });
      this.once('close', () => { done = true; poke(); });
      for (;;) {
        if (chunks.length) { yield chunks.shift(); continue; }
        if (error) throw error;
        if (done) return;
        await new Promise((resolve) => { wake = resolve; });
      }
    }
    static from(iterable, options = {}) {
      if (typeof iterable === 'string' || iterable instanceof Uint8Array) {
        const r = new Readable({ objectMode: true, ...options });
        r.push(iterable); r.push(null);
        return r;
      }
      const it = iterable && (iterable[Symbol.asyncIterator] ? iterable[Symbol.asyncIterator]() :
        iterable[Symbol.iterator] ? iterable[Symbol.iterator]() : null);
      if (!it) throw argType('iterable', 'an Iterable', iterable);
      let busy = false;
      return new Readable({
        objectMode: true, ...options,
        read() {
          if (busy) return;
          busy = true;
          Promise.resolve(it.next()).then(({ value, done }) => {
            busy = false;
            if (done) this.push(null); else this.push(value);
          }, (e) => this.destroy(e));
        },
      });
    }
  }

  // ---- Writable ------------------------------------------------------------------------------------
  const writableMethods = {
    _writableInit(options) {
      this._writableState = { ended: false, finishing: false, finished: false, pending: 0,
        objectMode: !!(options.objectMode || options.writableObjectMode), decodeStrings: options.decodeStrings !== false,
        defaultEncoding: options.defaultEncoding || 'utf8' };
      this.writable = true;
      if (typeof options.write === 'function') this._write = options.write;
      if (typeof options.final === 'function') this._final = options.final;
      if (typeof options.destroy === 'function') this._destroy = options.destroy;
    },
    write(chunk, encoding, cb) {
      const st = this._writableState;
      if (typeof encoding === 'function') { cb = encoding; encoding = undefined; }
      if (st.ended) {
        const e = nodeError(Error, 'ERR_STREAM_WRITE_AFTER_END', 'write after end');
        later(() => { if (cb) cb(e); this.emit('error', e); });
        return false;
      }
      if (chunk === null) throw nodeError(TypeError, 'ERR_STREAM_NULL_VALUES', 'May not write null values to stream');
      if (!st.objectMode && typeof chunk === 'string' && st.decodeStrings) {
        chunk = Buffer.from(chunk, encoding || st.defaultEncoding);
        encoding = 'buffer';
      } else if (!st.objectMode && typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) {
        throw argType('chunk', 'of type string or an instance of Buffer or Uint8Array', chunk);
      }
      st.pending++;
      let called = false;
      this._write(chunk, encoding || (typeof chunk === 'string' ? st.defaultEncoding : 'buffer'), (err) => {
        if (called) return;
        called = true;
        st.pending--;
        if (cb) later(cb, err || null);
        if (err) this.destroy(err);
        else this._maybeFinish();
      });
      return true;
    },
    end(chunk, encoding, cb) {
      if (typeof chunk === 'function') { cb = chunk; chunk = undefined; }
      else if (typeof encoding === 'function') { cb = encoding; encoding = undefined; }
      if (chunk !== undefined && chunk !== null) this.write(chunk, encoding);
      const st = this._writableState;
      if (cb) { if (st.finished) later(cb); else this.once('finish', cb); }
      st.ended = true;
      this.writable = false;
      this._maybeFinish();
      return this;
    },
    _maybeFinish() {
      const st = this._writableState;
      if (!st.ended || st.pending || st.finishing || this.destroyed) return;
      st.finishing = true;
      const done = (err) => {
        if (err) { this.destroy(err); return; }
        st.finished = true;
        later(() => { this.emit('finish'); if (!this._readableState) this.destroy(); });
      };
      if (this._final) this._final(done); else done();
    },
    cork() {},
    uncork() {},
    setDefaultEncoding(encoding) { this._writableState.defaultEncoding = encoding; return this; },
  };
  const writableGetters = {
    writableEnded() { return this._writableState.ended; },
    writableFinished() { return this._writableState.finished; },
    writableObjectMode() { return this._writableState.objectMode; },
    writableLength() { return this._writableState.pending; },
  };
  function addWritable(C) {
    for (const [k, v] of Object.entries(writableMethods)) Object.defineProperty(C.prototype, k, { value: v, writable: true, configurable: true });
    for (const [k, get] of Object.entries(writableGetters)) Object.defineProperty(C.prototype, k, { get, configurable: true });
  }

  class Writable extends EventEmitter {
    constructor(options = {}) { super(); this.destroyed = false; this._writableInit(options); }
    _write(chunk, encoding, cb) { cb(nodeError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', 'The _write() method is not implemented')); }
    _destroy(err, cb) { cb(err); }
    destroy(err) { return destroy(this, err); }
  }
  addWritable(Writable);

  class Duplex extends Readable {
    constructor(options = {}) { super(options); this._writableInit(options); }
    _write(chunk, encoding, cb) { cb(nodeError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', 'The _write() method is not implemented')); }
  }
  addWritable(Duplex);

  class Transform extends Duplex {
    constructor(options = {}) {
      super(options);
      if (typeof options.transform === 'function') this._transform = options.transform;
      if (typeof options.flush === 'function') this._flush = options.flush;
    }
    _transform(chunk, encoding, cb) { cb(nodeError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', 'The _transform() method is not implemented')); }
    _write(chunk, encoding, cb) {
      this._transform(chunk, encoding, (err, data) => {
        if (!err && data !== undefined && data !== null) this.push(data);
        cb(err);
      });
    }
    _final(cb) {
      const done = (err, data) => {
        if (!err && data !== undefined && data !== null) this.push(data);
        this.push(null);
        cb(err);
      };
      if (this._flush) this._flush(done); else done();
    }
  }
  class PassThrough extends Transform {
    _transform(chunk, encoding, cb) { cb(null, chunk); }
  }

  // ---- pipeline, finished --------------------------------------------------------------------------
  function finished(stream, options, cb) {
    if (typeof options === 'function') cb = options;
    let called = false;
    const done = (err) => { if (!called) { called = true; cb(err || undefined); } };
    const readable = !!stream._readableState && !stream._writableState;
    stream.once(readable ? 'end' : 'finish', () => done());
    stream.once('error', done);
    stream.once('close', () => later(() => done(stream._writableState && !stream._writableState.finished && !readable ?
      nodeError(Error, 'ERR_STREAM_PREMATURE_CLOSE', 'Premature close') : undefined)));
    return () => { called = true; };
  }
  function pipeline(...streams) {
    const cb = typeof streams[streams.length - 1] === 'function' ? streams.pop() : null;
    if (streams.length === 1 && Array.isArray(streams[0])) streams = streams[0];
    if (streams.length < 2) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "streams" argument must be specified');
    streams = streams.map((s, i) => (i === 0 && !(s instanceof EventEmitter) ? Readable.from(s) : s));
    let failed = false;
    const fail = (err) => {
      if (failed) return;
      failed = true;
      for (const s of streams) if (typeof s.destroy === 'function') s.destroy();
      if (cb) cb(err);
    };
    for (let i = 0; i < streams.length; i++) {
      streams[i].on('error', fail);
      if (i + 1 < streams.length) streams[i].pipe(streams[i + 1]);
    }
    finished(streams[streams.length - 1], (err) => { if (err) fail(err); else if (!failed && cb) cb(); });
    return streams[streams.length - 1];
  }
  const promises = {
    pipeline: (...streams) => new Promise((resolve, reject) => pipeline(...streams, (err) => (err ? reject(err) : resolve()))),
    finished: (stream, options) => new Promise((resolve, reject) => finished(stream, options, (err) => (err ? reject(err) : resolve()))),
  };

  const stream = Object.assign(function Stream() {}, { Readable, Writable, Duplex, Transform, PassThrough, pipeline,
    finished, promises, Stream: EventEmitter });
  stream.Stream = stream;

  // ---- fs streams ----------------------------------------------------------------------------------
  const optionsOf = (o) => (typeof o === 'string' ? { encoding: o } : o === null || o === undefined ? {} : o);
  fs.createReadStream = function createReadStream(p, options) {
    const o = optionsOf(options);
    const path = shared.fsPath(p);
    const start = o.start === undefined ? 0 : o.start, end = o.end === undefined ? Infinity : o.end;
    const size = o.highWaterMark || 65536;
    let data = null, at = 0;
    const rs = new Readable({
      highWaterMark: size, encoding: o.encoding,
      read() {
        if (data === null) return;
        if (at >= data.length) { this.push(null); return; }
        const c = data.subarray(at, at + size);
        at += c.length;
        this.bytesRead += c.length;
        this.push(c);
      },
    });
    Object.assign(rs, { path: p, bytesRead: 0, pending: true, fd: null, close(cb) { if (cb) this.once('close', cb); this.destroy(); } });
    io(() => {
      try {
        const all = new FastBuffer(native.readBytes(path));
        data = all.subarray(Math.min(start, all.length), Math.min(all.length, end + 1));
      } catch (e) { rs.destroy(e); return; }
      rs.pending = false;
      rs.emit('open', 3);
      rs.emit('ready');
      rs._wake();
    });
    return rs;
  };
  fs.createWriteStream = function createWriteStream(p, options) {
    const o = optionsOf(options);
    const path = shared.fsPath(p);
    const flag = o.flags || o.flag || 'w';
    let opened = false, failed = null;
    const open = () => {
      if (opened || failed) return;
      opened = true;
      try { native.writeBytes(path, new Uint8Array(0), String(flag)); } catch (e) { failed = e; }
    };
    const ws = new Writable({
      decodeStrings: true, defaultEncoding: o.encoding || o.defaultEncoding || 'utf8',
      write(chunk, encoding, cb) {
        open();
        if (failed) { cb(failed); return; }
        try { native.writeBytes(path, chunk, 'a'); } catch (e) { cb(e); return; }
        this.bytesWritten += chunk.length;
        cb();
      },
    });
    Object.assign(ws, { path: p, bytesWritten: 0, pending: true, fd: null, close(cb) { this.end(cb); } });
    io(() => {
      open();
      if (failed) { ws.destroy(failed); return; }
      ws.pending = false;
      ws.emit('open', 3);
      ws.emit('ready');
    });
    return ws;
  };

  // ---- readline over a Readable: its text split into lines as it arrives -----------------------
  shared.lineSource = function lineSource(rl, input, emitLine, close) {
    let rest = '';
    if (!(input instanceof EventEmitter)) throw argType('input', 'a Readable stream', input);
    const decoder = new StringDecoder('utf8');
    input.on('data', (c) => {
      const text = rest + (typeof c === 'string' ? c : decoder.write(c));
      const lines = text.split(/\r?\n/);
      rest = lines.pop();
      for (const line of lines) emitLine(line);
    });
    input.on('end', () => { rest += decoder.end(); if (rest !== '') emitLine(rest); rest = ''; close(); });
    input.on('error', (e) => rl.emit('error', e));
  };

  shared.builtins.set('stream', stream);
  shared.builtins.set('stream/promises', promises);
})
