// node's fs and fs/promises on the natives of node_fs.c: the synchronous
// calls, their callback forms and their promise forms. They reach what the
// sandbox's WASI host lets them (/app and read-only mounts), nothing else.
(function (native, shared) {
  'use strict';

  const { Buffer, FastBuffer, encodingOf, decode, encode, checkPath, argType, nodeError } = shared;

  // a path argument: a string, a Buffer or a file: URL, as node takes them
  function pathOf(p, name = 'path') {
    if (typeof p === 'string') return checkPath(p);
    if (p instanceof Uint8Array) return checkPath(native.utf8Decode(p, false));
    if (p instanceof shared.URL) {
      if (p.protocol !== 'file:') throw nodeError(TypeError, 'ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
      return checkPath(shared.percentDecode(p.pathname));
    }
    throw argType(name, 'of type string or an instance of Buffer or URL', p);
  }
  const optionsOf = (o) => (typeof o === 'string' ? { encoding: o } : o === null || o === undefined ? {} : o);
  const result = (bytes, enc) => {
    const b = new FastBuffer(bytes);
    return enc === undefined || enc === null || enc === 'buffer' ? b : decode(b, encodingOf(enc));
  };
  const dataOf = (data, enc) => {
    if (typeof data === 'string') return encode(data, encodingOf(enc));
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    throw argType('data', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
  };

  function readFileSync(p, options) {
    const { encoding } = optionsOf(options);
    if (p === 0 || p === '/dev/stdin') return result(native.readBytes(0), encoding);
    return result(native.readBytes(pathOf(p)), encoding);
  }
  function writeFileSync(p, data, options) {
    const { encoding, flag = 'w' } = optionsOf(options);
    if (p === 1 || p === 2) { native.write(p, typeof data === 'string' ? data : native.utf8Decode(dataOf(data), false)); return; }
    native.writeBytes(pathOf(p), dataOf(data, encoding), String(flag));
  }
  function appendFileSync(p, data, options) {
    const { encoding, flag = 'a' } = optionsOf(options);
    native.writeBytes(pathOf(p), dataOf(data, encoding), String(flag));
  }
  function existsSync(p) {
    try { native.stat(pathOf(p), true); return true; } catch { return false; }
  }

  const TYPES = ['other', 'file', 'dir', 'symlink'];
  class Stats {
    constructor(a) {
      const [type, size, mtimeMs, atimeMs, ctimeMs, nlink, ino, dev] = a;
      Object.assign(this, {
        dev, mode: type === 2 ? 0o40755 : type === 3 ? 0o120777 : 0o100644, nlink, uid: 0, gid: 0, rdev: 0,
        blksize: 4096, ino, size, blocks: Math.ceil(size / 512), atimeMs, mtimeMs, ctimeMs, birthtimeMs: ctimeMs,
        atime: new Date(atimeMs), mtime: new Date(mtimeMs), ctime: new Date(ctimeMs), birthtime: new Date(ctimeMs),
      });
      Object.defineProperty(this, 'type', { value: TYPES[type] });
    }
    isFile() { return this.type === 'file'; }
    isDirectory() { return this.type === 'dir'; }
    isSymbolicLink() { return this.type === 'symlink'; }
    isFIFO() { return false; }
    isSocket() { return false; }
    isBlockDevice() { return false; }
    isCharacterDevice() { return false; }
  }
  const statWith = (follow) => (p, options) => {
    try {
      return new Stats(native.stat(pathOf(p), follow));
    } catch (e) {
      if (options && options.throwIfNoEntry === false && e.code === 'ENOENT') return undefined;
      throw e;
    }
  };
  const statSync = statWith(true), lstatSync = statWith(false);

  class Dirent {
    constructor(name, type, dir) { shared.own(this, { name, path: dir }); Object.defineProperty(this, 'type', { value: TYPES[type] }); }
    isFile() { return this.type === 'file'; }
    isDirectory() { return this.type === 'dir'; }
    isSymbolicLink() { return this.type === 'symlink'; }
    isFIFO() { return false; }
    isSocket() { return false; }
    isBlockDevice() { return false; }
    isCharacterDevice() { return false; }
  }
  const join = (a, b) => (a.endsWith('/') ? a + b : `${a}/${b}`);
  function readdirSync(p, options) {
    const { withFileTypes, recursive, encoding } = optionsOf(options);
    const dir = pathOf(p);
    const out = [];
    const walk = (d, prefix) => {
      for (const [name, type] of native.readdir(d)) {
        const rel = prefix ? `${prefix}/${name}` : name;
        out.push(withFileTypes ? new Dirent(name, type, d) : encoding === 'buffer' ? Buffer.from(rel) : rel);
        if (recursive && type === 2) walk(join(d, name), rel);
      }
    };
    walk(dir, '');
    return out;
  }
  function mkdirSync(p, options) {
    const { recursive } = typeof options === 'number' ? {} : optionsOf(options);
    const path = pathOf(p);
    if (!recursive) { native.mkdir(path); return undefined; }
    // each missing component of the absolute path in turn; node returns the
    // first one made
    let first, cur = '';
    for (const part of shared.path.resolve(path).split('/').filter(Boolean)) {
      cur += `/${part}`;
      let type = -1;
      try { type = native.stat(cur, true)[0]; } catch (e) { if (e.code !== 'ENOENT') throw e; }
      if (type === 2) continue;
      if (type !== -1) {
        throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { errno: -20, code: 'ENOTDIR', syscall: 'mkdir', path });
      }
      native.mkdir(cur);
      if (first === undefined) first = cur;
    }
    return first;
  }
  function rmdirSync(p, options) {
    if (options && options.recursive) return rmSync(p, { recursive: true });
    native.rmdir(pathOf(p));
    return undefined;
  }
  function rmTree(path) {
    const type = native.stat(path, false)[0];
    if (type === 2) {
      for (const [name] of native.readdir(path)) rmTree(join(path, name));
      native.rmdir(path);
    } else {
      native.unlink(path);
    }
  }
  function rmSync(p, options) {
    const { recursive, force } = optionsOf(options);
    const path = pathOf(p);
    try {
      const type = native.stat(path, false)[0];
      if (type === 2 && !recursive) {
        throw Object.assign(new Error(`Path is a directory: rm returned EISDIR (is a directory) ${path}`),
          { code: 'ERR_FS_EISDIR', errno: 21, syscall: 'rm', path });
      }
      rmTree(path);
    } catch (e) {
      if (!(force && e.code === 'ENOENT')) throw e;
    }
  }
  const unlinkSync = (p) => { native.unlink(pathOf(p)); };
  const symlinkSync = (target, p) => { native.symlink(pathOf(target, 'target'), pathOf(p)); };
  const readlinkSync = (p) => native.readlink(pathOf(p));
  const renameSync = (a, b) => { native.rename(pathOf(a, 'oldPath'), pathOf(b, 'newPath')); };
  function copyFileSync(src, dest, mode) {
    const bytes = native.readBytes(pathOf(src, 'src'));
    native.writeBytes(pathOf(dest, 'dest'), bytes, mode & 1 ? 'wx' : 'w'); // COPYFILE_EXCL
  }
  function cpSync(src, dest, options) {
    const s = pathOf(src, 'src'), d = pathOf(dest, 'dest');
    if (native.stat(s, true)[0] === 2) {
      if (!(options && options.recursive)) {
        throw Object.assign(new Error(`Recursive option is required to copy a directory: ${s}`), { code: 'ERR_FS_EISDIR' });
      }
      mkdirSync(d, { recursive: true });
      for (const [name] of native.readdir(s)) cpSync(join(s, name), join(d, name), options);
    } else {
      copyFileSync(s, d);
    }
  }
  function accessSync(p) { native.stat(pathOf(p), true); }
  function realpathSync(p) {
    const path = shared.path.resolve(pathOf(p));
    native.stat(path, true);
    return path;
  }
  realpathSync.native = realpathSync;
  function mkdtempSync(prefix) {
    for (let tries = 1; ; tries++) {
      const bytes = new Uint8Array(6);
      native.randomFill(bytes);
      const name = pathOf(prefix, 'prefix') + Array.from(bytes, (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
      try { native.mkdir(name); return name; } catch (e) { if (e.code !== 'EEXIST' || tries === 100) throw e; }
    }
  }
  const unsupported = (name, why) => () => {
    throw nodeError(Error, 'ERR_NOT_AVAILABLE_IN_SANDBOX', `fs.${name}() is not available in the wasmbox sandbox: ${why}`);
  };

  const sync = { readFileSync, writeFileSync, appendFileSync, existsSync, statSync, lstatSync, readdirSync, mkdirSync,
    rmdirSync, rmSync, unlinkSync, symlinkSync, readlinkSync, renameSync, copyFileSync, cpSync, accessSync, realpathSync, mkdtempSync };

  // the callback forms run the call now and call back after the current job,
  // as node's thread pool would; the promise forms settle the same way
  const fs = { ...sync, Stats, Dirent };
  const promises = {};
  for (const [name, fn] of Object.entries(sync)) {
    const base = name.slice(0, -4);
    if (name === 'existsSync') {
      fs.exists = (p, cb) => { const r = fn(p); queueMicrotask(() => cb(r)); };
      continue;
    }
    fs[base] = function (...args) {
      const cb = args.pop();
      if (typeof cb !== 'function') throw argType('cb', 'of type function', cb);
      let r, err = null;
      try { r = fn(...args); } catch (e) { err = e; }
      queueMicrotask(() => (err ? cb(err) : cb(null, r)));
    };
    promises[base] = async (...args) => fn(...args);
  }
  promises.access = async (p) => accessSync(p);
  Object.assign(fs, {
    promises,
    constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, COPYFILE_EXCL: 1, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2 },
    F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1,
    watch: unsupported('watch', 'files do not change while the code runs'),
    openSync: unsupported('openSync', 'there are no file descriptors; use readFileSync/writeFileSync'),
  });
  promises.constants = fs.constants;
  shared.fs = fs; // node_stream.js adds createReadStream and createWriteStream
  shared.fsPath = pathOf;
})
