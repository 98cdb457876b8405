/* node's globals and core modules in the sandbox's JavaScript (docs/runtimes.md,
 * JavaScript): each program below was run with node 20 (v20.20.2) on the
 * build machine, and what node printed is what the sandbox must print. Where
 * the sandbox must differ from node (os values, modules it does not have,
 * paths outside /app) the test says so. */
#include "harness.h"

/* ---- buffer */
static const char buffer_js[] =
    "const b = Buffer.from('héllo €😀');\n"
    "console.log(b.length, b.toString('hex'));\n"
    "console.log(b.toString('base64'), b.toString('base64url'));\n"
    "console.log(Buffer.from('aGVsbG8gd29ybGQ=', 'base64').toString(), Buffer.from('aGVsbG8', 'base64url').toString(), Buffer.from('00ff7Fzz', 'hex'));\n"
    "console.log(Buffer.from('\\xe9t\\xe9', 'latin1'), Buffer.from([0xe9, 0x41]).toString('latin1'), Buffer.from([0xe9, 0x41]).toString('ascii'), Buffer.from([0xff, 0x41]).toString());\n"
    "console.log(Buffer.from([256, 1, -1]), Buffer.alloc(5, 'ab'), Buffer.concat([Buffer.from('a'), Buffer.from('bc')]).toString(), Buffer.byteLength('€'));\n"
    "console.log(Buffer.isBuffer(b), Buffer.isBuffer(new Uint8Array(1)), b.slice(1, 3), b.subarray(-2), b.slice(0, 2) instanceof Buffer);\n"
    "console.log(Buffer.from('abc').equals(Buffer.from('abc')), Buffer.compare(Buffer.from('a'), Buffer.from('b')), Buffer.from('b').compare(Buffer.from('a')));\n"
    "const w = Buffer.alloc(10); w.writeUInt32BE(0xdeadbeef, 0); w.writeUInt16LE(0x1234, 4); w.writeInt8(-2, 6); w.writeUInt8(255, 7);\n"
    "console.log(w, w.readUInt32BE(0), w.readUInt32LE(0), w.readUInt16LE(4), w.readInt8(6), w.readUInt8(7), w.readInt16BE(6));\n"
    "try { w.readUInt32LE(8) } catch (e) { console.log(e.name, e.code, e.message) }\n"
    "console.log(JSON.stringify(Buffer.from('hi')), Buffer.from('hello').indexOf('ll'), Buffer.from('hello').includes('z'), Buffer.from('hi', 'utf16le'));\n";
static const char buffer_out[] =
    "14 68c3a96c6c6f20e282acf09f9880\n"
    "aMOpbGxvIOKCrPCfmIA= aMOpbGxvIOKCrPCfmIA\n"
    "hello world hello <Buffer 00 ff 7f>\n"
    "<Buffer e9 74 e9> éA iA �A\n"
    "<Buffer 00 01 ff> <Buffer 61 62 61 62 61> abc 3\n"
    "true false <Buffer c3 a9> <Buffer 98 80> true\n"
    "true -1 1\n"
    "<Buffer de ad be ef 34 12 fe ff 00 00> 3735928559 4022250974 4660 -2 255 -257\n"
    "RangeError ERR_OUT_OF_RANGE The value of \"offset\" is out of range. It must be >= 0 and <= 6. Received 8\n"
    "{\"type\":\"Buffer\",\"data\":[104,105]} 2 false <Buffer 68 00 69 00>\n";

/* ---- text */
static const char text_js[] =
    "console.log(new TextEncoder().encode('a€'), new TextDecoder().decode(new Uint8Array([0xe2, 0x82, 0xac, 0xff, 0x41])), new TextDecoder().encoding);\n"
    "try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])) } catch (e) { console.log(e.name, e.code, e.message) }\n"
    "console.log(new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])), new TextEncoder().encodeInto('a€b', new Uint8Array(3)), new TextEncoder().encode('\\ud800'));\n"
    "console.log(btoa('hello'), atob('aGVsbG8='), atob(' aGVs bG8 '));\n"
    "try { atob('a') } catch (e) { console.log(e.name, e.code, e.message) }\n"
    "try { btoa('€') } catch (e) { console.log(e.name, e.code, e.message) }\n";
static const char text_out[] =
    "Uint8Array(4) [ 97, 226, 130, 172 ] €�A utf-8\n"
    "TypeError ERR_ENCODING_INVALID_ENCODED_DATA The encoded data was not valid for encoding utf-8\n"
    "A { read: 1, written: 1 } Uint8Array(3) [ 239, 191, 189 ]\n"
    "aGVsbG8= hello hello\n"
    "InvalidCharacterError 5 The string to be decoded is not correctly encoded.\n"
    "InvalidCharacterError 5 Invalid character\n";

/* ---- url */
static const char url_js[] =
    "const u = new URL('HTTPS://User:Pa ss@Example.COM:443/a/./b/../c d?x=1&y=a b#frag');\n"
    "console.log(u.href, u.origin, u.host, u.port, u.pathname, u.search, u.hash);\n"
    "console.log(new URL('../x?q#h', 'http://a.com/b/c/d').href, new URL('//other.org/p', 'https://a.com').href, new URL('file:///app/data/x.csv').pathname);\n"
    "console.log(new URL('http://127.1:8080').host, new URL('http://[2001:db8:0:0:1:0:0:1]/').host, new URL('mailto:someone@example.com').pathname);\n"
    "try { new URL('nope') } catch (e) { console.log(e.name, e.code, e.message, e.input) }\n"
    "const s = new URL('https://x.org/p?a=1&b=2&a=3');\n"
    "console.log(s.searchParams.get('a'), s.searchParams.getAll('a'), s.searchParams.has('b'), s.searchParams.size);\n"
    "s.searchParams.append('c', 'd e&f'); s.searchParams.delete('b'); console.log(s.href);\n"
    "s.search = '?k=v'; console.log(s.searchParams.get('k'), s.searchParams.get('a'), JSON.stringify({ u: s }));\n"
    "const p = new URLSearchParams({ q: 'a+b c', n: 1 }); p.sort(); console.log(p.toString(), [...p]);\n";
static const char url_out[] =
    "https://User:Pa%20ss@example.com/a/c%20d?x=1&y=a%20b#frag https://example.com example.com  /a/c%20d ?x=1&y=a%20b #frag\n"
    "http://a.com/b/x?q#h https://other.org/p /app/data/x.csv\n"
    "127.0.0.1:8080 [2001:db8::1:0:0:1] someone@example.com\n"
    "TypeError ERR_INVALID_URL Invalid URL nope\n"
    "1 [ '1', '3' ] true 3\n"
    "https://x.org/p?a=1&a=3&c=d+e%26f\n"
    "v null {\"u\":\"https://x.org/p?k=v\"}\n"
    "n=1&q=a%2Bb+c [ [ 'n', '1' ], [ 'q', 'a+b c' ] ]\n";

/* ---- clone */
static const char clone_js[] =
    "const o = { a: [1, { b: new Map([[1, new Set([2])]]) }], d: new Date(0), r: /x/gi, t: new Uint16Array([1, 2]) };\n"
    "o.self = o;\n"
    "const c = structuredClone(o);\n"
    "console.log(c !== o, c.self === c, c.a[1].b.get(1).has(2), c.d.toISOString(), c.r.flags, c.t);\n"
    "for (const bad of [() => {}, { f() {} }]) { try { structuredClone(bad) } catch (e) { console.log(e.name, e.code, e.message) } }\n";
static const char clone_out[] =
    "true true true 1970-01-01T00:00:00.000Z gi Uint16Array(2) [ 1, 2 ]\n"
    "DataCloneError 25 () => {} could not be cloned.\n"
    "DataCloneError 25 f() {} could not be cloned.\n";

/* ---- webcrypto */
static const char webcrypto_js[] =
    "(async () => {\n"
    "  for (const a of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']) {\n"
    "    const d = await crypto.subtle.digest(a, new TextEncoder().encode('abc'));\n"
    "    console.log(a, d instanceof ArrayBuffer, Buffer.from(d).toString('hex'));\n"
    "  }\n"
    "  const id = crypto.randomUUID();\n"
    "  console.log(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), id !== crypto.randomUUID());\n"
    "  const r = crypto.getRandomValues(new Uint32Array(4)); console.log(r.length, r.some((x) => x !== 0));\n"
    "  try { crypto.getRandomValues(new Uint8Array(70000)) } catch (e) { console.log(e.name) }\n"
    "})();\n";
static const char webcrypto_out[] =
    "SHA-1 true a9993e364706816aba3e25717850c26c9cd0d89d\n"
    "SHA-256 true ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
    "SHA-384 true cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7\n"
    "SHA-512 true ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f\n"
    "true true\n"
    "4 true\n"
    "QuotaExceededError\n";

/* ---- events */
static const char events_js[] =
    "const ac = new AbortController(); const seen = [];\n"
    "ac.signal.addEventListener('abort', (e) => seen.push(e.type, ac.signal.aborted));\n"
    "ac.signal.onabort = () => seen.push('onabort');\n"
    "ac.abort(); ac.abort();\n"
    "console.log(seen, ac.signal.reason.name, ac.signal.reason.message, AbortSignal.abort('why').reason);\n"
    "const t = new EventTarget(); let n = 0; const f = (e) => { n++; };\n"
    "t.addEventListener('x', f); t.addEventListener('x', f); t.addEventListener('y', { handleEvent: f }, { once: true });\n"
    "t.dispatchEvent(new Event('x')); t.dispatchEvent(new Event('y')); t.dispatchEvent(new Event('y'));\n"
    "const ev = new Event('z', { cancelable: true }); ev.preventDefault(); console.log(n, ev.defaultPrevented);\n"
    "const sig = AbortSignal.timeout(10); setTimeout(() => console.log(sig.aborted, sig.reason.name), 30);\n"
    "setTimeout(() => console.log('never'), 100000).unref();\n"
    "console.log(typeof global, global === globalThis, process.platform, process.argv.length, typeof process.hrtime()[1], typeof process.hrtime.bigint(), Object.keys(process.memoryUsage()).join());\n"
    "process.nextTick((x) => console.log('tick', x), 7);\n"
    "setImmediate(() => console.log('immediate'));\n";
static const char events_out[] =
    "[ 'abort', true, 'onabort' ] AbortError This operation was aborted why\n"
    "2 true\n"
    "object true linux 2 number bigint rss,heapTotal,heapUsed,external,arrayBuffers\n"
    "tick 7\n"
    "immediate\n"
    "true TimeoutError\n";

/* ---- core */
static const char core_js[] =
    "const path = require('path'), util = require('node:util'), EventEmitter = require('events');\n"
    "console.log(path.join('/a/b', '../c', './d.txt'), path.resolve('/x', 'y', '..', 'z'), path.resolve('rel'), path.dirname('/a/b/c.txt'), path.basename('/a/b/c.txt', '.txt'), path.extname('x.tar.gz'), path.relative('/a/b/c', '/a/d'), path.normalize('a//b/../c/'));\n"
    "console.log(path.parse('/home/u/f.txt'), path.format({ dir: '/x', name: 'f', ext: '.js' }), path.posix === path, path.isAbsolute('a'));\n"
    "console.log(util.format('%s is %d years, %j', 'Bob', 42, { a: 1 }, 'extra'), util.inspect({ a: { b: { c: { d: 1 } } } }, { depth: null }), util.inspect({ a: { b: { c: { d: 1 } } } }));\n"
    "console.log(util.isDeepStrictEqual({ a: [1, new Map([[1, 2]])] }, { a: [1, new Map([[1, 2]])] }), util.isDeepStrictEqual([1], ['1']), util.types.isPromise(Promise.resolve()), util.types.isDate(new Date()), util.types.isAsyncFunction(async () => {}));\n"
    "class Custom { [util.inspect.custom]() { return 'CUSTOM!'; } }\n"
    "console.log(util.inspect(new Custom()), [new Custom()]);\n"
    "util.promisify((x, cb) => cb(null, x * 2))(21).then((v) => console.log('promisified', v));\n"
    "const e = new EventEmitter(); const log = [];\n"
    "e.on('x', (a, b) => log.push(`on ${a} ${b}`)); e.once('x', (a) => log.push(`once ${a}`)); e.prependListener('x', () => log.push('first'));\n"
    "console.log(e.emit('x', 1, 2), e.emit('x', 3), e.emit('nothing'), e.listenerCount('x'), log.join('|'), e.eventNames());\n"
    "const h = () => {}; e.on('y', h); e.off('y', h); console.log(e.listenerCount('y'));\n"
    "try { e.emit('error', new Error('bad')) } catch (err) { console.log('thrown', err.message) }\n"
    "try { e.emit('error', 'str') } catch (err) { console.log(err.code, err.message) }\n"
    "EventEmitter.once(e, 'ready').then((args) => console.log('once resolved', args)); e.emit('ready', 1, 2);\n";
static const char core_out[] =
    "/a/c/d.txt /x/z /app/rel /a/b c .gz ../../d a/c/\n"
    "{ root: '/', dir: '/home/u', base: 'f.txt', ext: '.txt', name: 'f' } /x/f.js true false\n"
    "Bob is 42 years, {\"a\":1} extra {\n"
    "  a: { b: { c: { d: 1 } } }\n"
    "} { a: { b: { c: [Object] } } }\n"
    "true false true true true\n"
    "CUSTOM! [ CUSTOM! ]\n"
    "true true false 2 first|on 1 2|once 1|first|on 3 undefined [ 'x' ]\n"
    "0\n"
    "thrown bad\n"
    "ERR_UNHANDLED_ERROR Unhandled error. ('str')\n"
    "promisified 42\n"
    "once resolved [ 1, 2 ]\n";

/* ---- cryptomod */
static const char cryptomod_js[] =
    "const crypto = require('crypto');\n"
    "console.log(crypto.createHash('md5').update('hello').digest('hex'), crypto.createHash('sha1').update('hel').update('lo').digest('base64'), crypto.createHash('sha256').update('').digest('hex'));\n"
    "console.log(crypto.createHash('sha512').update(Buffer.from('abc')).digest('hex').slice(0, 32), crypto.createHash('sha384').update('abc').digest('base64'), crypto.createHash('sha256').update('a'.repeat(1000)).digest('hex'));\n"
    "console.log(crypto.createHmac('sha256', 'key').update('The quick brown fox jumps over the lazy dog').digest('hex'), crypto.createHmac('md5', 'k'.repeat(100)).update('x').digest('base64'));\n"
    "console.log(crypto.createHmac('sha512', 'key').update('msg').digest('hex').slice(0, 40), crypto.createHmac('sha1', Buffer.from('key')).update('x').digest('hex'), crypto.createHash('md5').update('x').digest().length);\n"
    "console.log(crypto.randomBytes(8).length, crypto.randomBytes(8).equals(crypto.randomBytes(8)), crypto.timingSafeEqual(Buffer.from('a'), Buffer.from('a')), crypto.randomInt(5, 6));\n"
    "try { crypto.createHash('whirl') } catch (err) { console.log(err.message) }\n"
    "const h = crypto.createHash('md5'); h.digest(); try { h.digest() } catch (err) { console.log(err.code, err.message) }\n";
static const char cryptomod_out[] =
    "5d41402abc4b2a76b9719d911017c592 qvTGHdzF6KLavt4PO0gs2a6pQ00= e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
    "ddaf35a193617abacc417349ae204131 ywB1P0WjXou1oD1pmsZQBycsMqsO3tFjGotgWkP/W+2AhgcroefMI1i67KE0yCWn 41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3\n"
    "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8 KRfjF4MjMLqnK3c6eUGihg==\n"
    "1e4b55b925ccc28ed90d9d18fc2393fcbe164c0d 2a00e8e8343df86c4c188b263eeca331afa31548 16\n"
    "8 false true 5\n"
    "Digest method not supported\n"
    "ERR_CRYPTO_HASH_FINALIZED Digest already called\n";

/* ---- misc */
static const char misc_js[] =
    "const assert = require('assert');\n"
    "for (const f of [() => assert.equal(1, 2), () => assert.strictEqual(1, 2), () => assert.deepStrictEqual({ a: 1 }, { a: 2 }), () => assert.throws(() => {}), () => assert.notStrictEqual(1, 1), () => assert.match('abc', /x/), () => assert.fail('boom')]) {\n"
    "  try { f(); console.log('no error') } catch (e) { console.log(JSON.stringify([e.name, e.code, e.message, e.operator]), e instanceof assert.AssertionError) }\n"
    "}\n"
    "assert.ok(1); assert.deepStrictEqual(new Set([1, [2]]), new Set([1, [2]])); assert.throws(() => { throw new TypeError('x') }, TypeError); assert.throws(() => { throw new Error('abc') }, /b/);\n"
    "const qs = require('querystring'); console.log(qs.parse('a=1&b=2&a=3&c=x%20y+z'), qs.stringify({ a: [1, 2], b: 'x y', c: true, d: null }));\n"
    "const { StringDecoder } = require('string_decoder'); const d = new StringDecoder('utf8'); const eur = Buffer.from('€');\n"
    "console.log(JSON.stringify([d.write(eur.subarray(0, 1)), d.write(eur.subarray(1)), d.write(Buffer.from([0xe2])), d.end()]));\n"
    "const url = require('url'); const lu = url.parse('http://user:pw@Host.com:8080/p/a/t/h?query=string#hash', true);\n"
    "console.log(lu.protocol, lu.auth, lu.host, lu.port, lu.hostname, lu.hash, lu.search, lu.query, lu.pathname, lu.path, lu.href);\n"
    "console.log(url.resolve('http://a.com/b/c', '../d'), url.resolve('/one/two/three', 'four'), url.fileURLToPath('file:///app/a%20b.txt'), url.pathToFileURL('/app/a b.txt').href);\n"
    "require('timers/promises').setTimeout(5, 'val').then((v) => console.log('timers/promises', v));\n"
    "console.log(require('buffer').Buffer === Buffer, require('fs/promises') === require('fs').promises, require('node:path') === require('path'), require('assert/strict') === assert.strict);\n";
static const char misc_out[] =
    "[\"AssertionError\",\"ERR_ASSERTION\",\"1 == 2\",\"==\"] true\n"
    "[\"AssertionError\",\"ERR_ASSERTION\",\"Expected values to be strictly equal:\\n\\n1 !== 2\\n\",\"strictEqual\"] true\n"
    "[\"AssertionError\",\"ERR_ASSERTION\",\"Expected values to be strictly deep-equal:\\n+ actual - expected\\n\\n  {\\n+   a: 1\\n-   a: 2\\n  }\",\"deepStrictEqual\"] true\n"
    "[\"AssertionError\",\"ERR_ASSERTION\",\"Missing expected exception.\",\"throws\"] true\n"
    "[\"AssertionError\",\"ERR_ASSERTION\",\"Expected \\\"actual\\\" to be strictly unequal to: 1\",\"notStrictEqual\"] true\n"
    "[\"AssertionError\",\"ERR_ASSERTION\",\"The input did not match the regular expression /x/. Input:\\n\\n'abc'\\n\",\"match\"] true\n"
    "[\"AssertionError\",\"ERR_ASSERTION\",\"boom\",\"fail\"] true\n"
    "[Object: null prototype] { a: [ '1', '3' ], b: '2', c: 'x y z' } a=1&a=2&b=x%20y&c=true&d=\n"
    "[\"\",\"€\",\"\",\"�\"]\n"
    "http: user:pw host.com:8080 8080 host.com #hash ?query=string [Object: null prototype] { query: 'string' } /p/a/t/h /p/a/t/h?query=string http://user:pw@host.com:8080/p/a/t/h?query=string#hash\n"
    "http://a.com/d /one/two/four /app/a b.txt file:///app/a%20b.txt\n"
    "true true true true\n"
    "timers/promises val\n";

/* ---- fs */
static const char fs_js[] =
    "const fs = require('fs');\n"
    "fs.writeFileSync('a.txt', 'hello');\n"
    "fs.appendFileSync('a.txt', Buffer.from(' world'));\n"
    "console.log(fs.readFileSync('a.txt', 'utf8'), fs.readFileSync('a.txt'), fs.readFileSync('a.txt', { encoding: 'base64' }), fs.existsSync('a.txt'), fs.existsSync('nope'));\n"
    "console.log(fs.mkdirSync('d/e/f', { recursive: true }).split('/').pop()); fs.writeFileSync('d/e/f/g.json', JSON.stringify({ x: 1 }));\n"
    "console.log(fs.readdirSync('.'), fs.readdirSync('d', { withFileTypes: true }).map((e) => [e.name, e.isDirectory(), e.isFile()]), fs.readdirSync('d', { recursive: true }));\n"
    "const st = fs.statSync('a.txt'); console.log(st.size, st.isFile(), st.isDirectory(), st.mtime instanceof Date, fs.statSync('d').isDirectory(), fs.statSync('nope', { throwIfNoEntry: false }));\n"
    "for (const f of [() => fs.readFileSync('missing.txt'), () => fs.mkdirSync('d'), () => fs.readdirSync('a.txt'), () => fs.rmdirSync('d'), () => fs.unlinkSync('nope'), () => fs.renameSync('zz', 'yy'), () => fs.rmSync('d'), () => fs.readFileSync('d'), () => fs.statSync('nope'), () => fs.writeFileSync('a.txt', 'x', { flag: 'wx' })]) {\n"
    "  try { f(); console.log('no error') } catch (e) { console.log(e.code, e.errno, e.syscall, e.path, e.message) }\n"
    "}\n"
    "fs.renameSync('a.txt', 'b.txt'); fs.copyFileSync('b.txt', 'c.txt'); fs.unlinkSync('b.txt');\n"
    "fs.rmSync('d', { recursive: true }); fs.rmSync('nothing', { force: true });\n"
    "console.log(fs.readdirSync('.'));\n"
    "fs.readFile('c.txt', 'utf8', (err, data) => {\n"
    "  console.log('callback', err, data);\n"
    "  fs.readFile('zzz', (err2) => {\n"
    "    console.log('callback error', err2.code);\n"
    "    fs.promises.readFile('c.txt', 'utf8').then((d) => {\n"
    "      console.log('promise', d);\n"
    "      require('fs/promises').stat('zzz').catch((e) => console.log('promise error', e.message));\n"
    "    });\n"
    "  });\n"
    "});\n";
static const char fs_out[] =
    "hello world <Buffer 68 65 6c 6c 6f 20 77 6f 72 6c 64> aGVsbG8gd29ybGQ= true false\n"
    "d\n"
    "[ 'a.txt', 'd' ] [ [ 'e', true, false ] ] [ 'e', 'e/f', 'e/f/g.json' ]\n"
    "11 true false true true undefined\n"
    "ENOENT -2 open missing.txt ENOENT: no such file or directory, open 'missing.txt'\n"
    "EEXIST -17 mkdir d EEXIST: file already exists, mkdir 'd'\n"
    "ENOTDIR -20 scandir a.txt ENOTDIR: not a directory, scandir 'a.txt'\n"
    "ENOTEMPTY -39 rmdir d ENOTEMPTY: directory not empty, rmdir 'd'\n"
    "ENOENT -2 unlink nope ENOENT: no such file or directory, unlink 'nope'\n"
    "ENOENT -2 rename zz ENOENT: no such file or directory, rename 'zz' -> 'yy'\n"
    "ERR_FS_EISDIR 21 rm d Path is a directory: rm returned EISDIR (is a directory) d\n"
    "EISDIR -21 read undefined EISDIR: illegal operation on a directory, read\n"
    "ENOENT -2 stat nope ENOENT: no such file or directory, stat 'nope'\n"
    "EEXIST -17 open a.txt EEXIST: file already exists, open 'a.txt'\n"
    "[ 'c.txt' ]\n"
    "callback null hello world\n"
    "callback error ENOENT\n"
    "promise hello world\n"
    "promise error ENOENT: no such file or directory, stat 'zzz'\n";

/* ---- streams: fs.createReadStream/createWriteStream, readline over a file, stream's classes and
 * pipelines, and process.nextTick before the Promise jobs */
static const char streams_js[] =
    "const fs = require('fs');\n"
    "const readline = require('readline');\n"
    "const { Readable, Writable, Transform, PassThrough, pipeline } = require('stream');\n"
    "const { pipeline: pipelineP } = require('node:stream/promises');\n"
    "fs.writeFileSync('in.csv', 'a,b\\n1,2\\n3,4\\r\\n5,é');\n"
    "const order = [];\n"
    "process.nextTick(() => order.push('tick1'));\n"
    "Promise.resolve().then(() => { order.push('promise'); process.nextTick(() => order.push('tick-in-promise')); });\n"
    "process.nextTick((x) => order.push(x), 'tick2');\n"
    "queueMicrotask(() => order.push('microtask'));\n"
    "setTimeout(() => console.log(order.join(' ')), 0);\n"
    "(async () => {\n"
    "  const rl = readline.createInterface({ input: fs.createReadStream('in.csv'), crlfDelay: Infinity });\n"
    "  const rows = [];\n"
    "  for await (const line of rl) rows.push(line.split(','));\n"
    "  console.log(JSON.stringify(rows));\n"
    "  const lines = [];\n"
    "  await new Promise((r) => readline.createInterface({ input: fs.createReadStream('in.csv') }).on('line', (l) => lines.push(l)).on('close', r));\n"
    "  console.log(lines.length, lines[3]);\n"
    "  await new Promise((r) => {\n"
    "    const out = fs.createWriteStream('out.txt');\n"
    "    out.write('x\\n');\n"
    "    out.write(Buffer.from('y\\n'));\n"
    "    out.end('z\\n', () => { console.log('finish', JSON.stringify(fs.readFileSync('out.txt', 'utf8')), out.bytesWritten); r(); });\n"
    "  });\n"
    "  fs.createWriteStream('out.txt', { flags: 'a' }).end('more\\n');\n"
    "  await new Promise((r) => setTimeout(r, 5));\n"
    "  console.log(JSON.stringify(fs.readFileSync('out.txt', 'utf8')));\n"
    "  await new Promise((r) => {\n"
    "    const seen = [];\n"
    "    fs.createReadStream('in.csv', { highWaterMark: 4, encoding: 'utf8' }).on('open', () => seen.push('open'))\n"
    "      .on('ready', () => seen.push('ready')).on('data', (c) => seen.push(c)).on('end', () => seen.push('end'))\n"
    "      .on('close', () => { console.log(JSON.stringify(seen)); r(); });\n"
    "  });\n"
    "  await new Promise((r) => fs.createReadStream('in.csv', { start: 4, end: 6 }).on('data', (c) => console.log(c, c.toString())).on('close', r));\n"
    "  await new Promise((r) => fs.createReadStream('nope.txt').on('error', (e) => { console.log(e.code, e.syscall, e.message); r(); }));\n"
    "  const upper = new Transform({ transform(chunk, enc, cb) { cb(null, chunk.toString().toUpperCase()); } });\n"
    "  await pipelineP(fs.createReadStream('in.csv'), upper, fs.createWriteStream('up.txt'));\n"
    "  console.log(JSON.stringify(fs.readFileSync('up.txt', 'utf8')));\n"
    "  const items = [];\n"
    "  for await (const x of Readable.from(['a', 'b', 'c'])) items.push(x);\n"
    "  console.log(items);\n"
    "  let text = '';\n"
    "  for await (const c of fs.createReadStream('in.csv', 'utf8')) text += c;\n"
    "  console.log(text.length);\n"
    "  const got = [];\n"
    "  const w = new Writable({ write(c, e, cb) { got.push([c.toString(), e]); cb(); } });\n"
    "  await new Promise((r) => Readable.from(['p', 'q']).pipe(w).on('finish', r));\n"
    "  console.log(JSON.stringify(got));\n"
    "  const pt = new PassThrough();\n"
    "  pt.end('through');\n"
    "  console.log(String(pt.read()));\n"
    "  await new Promise((r) => pipeline(fs.createReadStream('missing.csv'), new PassThrough(), fs.createWriteStream('m.txt'), (err) => { console.log('pipeline', err.code); r(); }));\n"
    "  const ws = new Writable({ write(c, e, cb) { cb(); } });\n"
    "  ws.end();\n"
    "  ws.write('late', (err) => console.log('write after end:', err.code));\n"
    "  ws.on('error', (e) => console.log('error event', e.message));\n"
    "})();\n";
static const char streams_out[] =
    "tick1 tick2 promise microtask tick-in-promise\n"
    "[[\"a\",\"b\"],[\"1\",\"2\"],[\"3\",\"4\"],[\"5\",\"é\"]]\n"
    "4 5,é\n"
    "finish \"x\\ny\\nz\\n\" 6\n"
    "\"x\\ny\\nz\\nmore\\n\"\n"
    "[\"open\",\"ready\",\"a,b\\n\",\"1,2\\n\",\"3,4\\r\",\"\\n5,\",\"é\",\"end\"]\n"
    "<Buffer 31 2c 32> 1,2\n"
    "ENOENT open ENOENT: no such file or directory, open 'nope.txt'\n"
    "\"A,B\\n1,2\\n3,4\\r\\n5,É\"\n"
    "[ 'a', 'b', 'c' ]\n"
    "16\n"
    "[[\"p\",\"buffer\"],[\"q\",\"buffer\"]]\n"
    "through\n"
    "pipeline ENOENT\n"
    "write after end: ERR_STREAM_WRITE_AFTER_END\n"
    "error event write after end\n";

/* ---- the built-in npm packages (runtimes/javascript/packages), each used as its README shows */
static const char packages_js[] =
    "const _ = require('lodash');\n"
    "console.log(_.chunk([1, 2, 3, 4, 5], 2), _.groupBy(['one', 'two', 'three'], 'length'), _.camelCase('Foo Bar'));\n"
    "const dayjs = require('dayjs'); const utc = require('dayjs/plugin/utc'); dayjs.extend(utc);\n"
    "console.log(dayjs.utc('2024-03-05T10:20:30Z').add(1, 'month').format('YYYY-MM-DD HH:mm'));\n"
    "const { format, addDays, differenceInDays } = require('date-fns');\n"
    "console.log(format(addDays(new Date(Date.UTC(2024, 0, 30)), 3), 'yyyy-MM-dd'), differenceInDays(new Date(2024, 5, 1), new Date(2024, 0, 1)));\n"
    "const Papa = require('papaparse');\n"
    "console.log(JSON.stringify(Papa.parse('a,b\\n1,2\\n3,4', { header: true, dynamicTyping: true }).data));\n"
    "const math = require('mathjs');\n"
    "console.log(math.evaluate('sqrt(16) + 2^3'), math.format(math.multiply(math.matrix([[1, 2], [3, 4]]), 2)), math.round(math.e, 3));\n"
    "const { v4: uuidv4, validate } = require('uuid');\n"
    "console.log(validate(uuidv4()));\n"
    "const { z } = require('zod');\n"
    "const User = z.object({ name: z.string(), age: z.number().int().positive() });\n"
    "console.log(User.safeParse({ name: 'a', age: 3 }).success, User.safeParse({ name: 'a', age: -1 }).error.issues[0].message);\n"
    "const { marked } = require('marked');\n"
    "console.log(marked.parse('# Hi\\n\\n*there*').trim());\n"
    "const { parse } = require('csv-parse/sync');\n"
    "const { stringify } = require('csv-stringify/sync');\n"
    "console.log(JSON.stringify(parse('a,b\\n1,\"x,y\"\\n', { columns: true })), JSON.stringify(stringify([['a', 'b,c'], [1, 2]])));\n"
    "const yaml = require('js-yaml');\n"
    "console.log(JSON.stringify(yaml.load('a: 1\\nb: [x, y]\\n')), JSON.stringify(yaml.dump({ k: [1, 2] })));\n"
    "const cheerio = require('cheerio');\n"
    "const $ = cheerio.load('<ul><li class=\"x\">One</li><li>Two</li></ul>');\n"
    "console.log($('li').length, $('.x').text(), $('li').map((i, el) => $(el).text()).get().join('|'));\n";
static const char packages_out[] =
    "[ [ 1, 2 ], [ 3, 4 ], [ 5 ] ] { '3': [ 'one', 'two' ], '5': [ 'three' ] } fooBar\n"
    "2024-04-05 10:20\n"
    "2024-02-02 152\n"
    "[{\"a\":1,\"b\":2},{\"a\":3,\"b\":4}]\n"
    "12 [[2, 4], [6, 8]] 2.718\n"
    "true\n"
    "true Number must be greater than 0\n"
    "<h1>Hi</h1>\n"
    "<p><em>there</em></p>\n"
    "[{\"a\":\"1\",\"b\":\"x,y\"}] \"a,\\\"b,c\\\"\\n1,2\\n\"\n"
    "{\"a\":1,\"b\":[\"x\",\"y\"]} \"k:\\n  - 1\\n  - 2\\n\"\n"
    "2 One One|Two\n";

/* ---- Intl (en-US; the sandbox's clock and zone are UTC, node ran with TZ=UTC) */
static const char intl_js[] =
    "const d = new Date(Date.UTC(2024, 0, 15, 13, 5, 9));\n"
    "const s = new Date(Date.UTC(2024, 6, 4, 16, 30));\n"
    "const out = [];\n"
    "const p = (...a) => out.push(a.map(String).join(' | '));\n"
    "p((1234567.891).toLocaleString(), (1234567.891).toLocaleString('en-US'), (0.5).toLocaleString('en-US', { style: 'percent' }), (-1234.5).toLocaleString('en-US'));\n"
    "p(new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(1234.5), new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(-9.999), new Intl.NumberFormat('en-US', { style: 'currency', currency: 'JPY' }).format(1234.5));\n"
    "p(new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(3.14159), new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 }).format(123456), new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 }).format(0.12345));\n"
    "p(new Intl.NumberFormat('en-US', { notation: 'compact' }).format(1234567), new Intl.NumberFormat('en-US', { notation: 'compact', compactDisplay: 'long' }).format(2500), new Intl.NumberFormat('en-US', { notation: 'scientific' }).format(123456), new Intl.NumberFormat('en-US', { notation: 'engineering' }).format(123456));\n"
    "p(new Intl.NumberFormat('en-US', { style: 'unit', unit: 'kilometer-per-hour' }).format(50), new Intl.NumberFormat('en-US', { style: 'unit', unit: 'megabyte', unitDisplay: 'long' }).format(1.5), new Intl.NumberFormat('en-US', { signDisplay: 'always' }).format(5), new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', currencyDisplay: 'name' }).format(2));\n"
    "p((123456789n).toLocaleString('en-US'), new Intl.NumberFormat('en-US').formatToParts(-1234.5).map(x => x.type + ':' + x.value).join(','), new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).resolvedOptions().maximumFractionDigits);\n"
    "p(d.toLocaleDateString('en-US'), d.toLocaleTimeString('en-US'), d.toLocaleString('en-US'), d.toLocaleString());\n"
    "p(d.toLocaleDateString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }), d.toLocaleDateString('en-US', { month: 'short', day: 'numeric' }), d.toLocaleDateString('en-US', { year: '2-digit', month: '2-digit', day: '2-digit' }));\n"
    "p(new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' }).format(d), new Intl.DateTimeFormat('en-US', { dateStyle: 'short', timeStyle: 'short' }).format(d), new Intl.DateTimeFormat('en-US', { timeStyle: 'medium', hour12: false }).format(d));\n"
    "p(new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', dateStyle: 'medium', timeStyle: 'short' }).format(s), new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Kolkata', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).format(s), new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/London', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(s));\n"
    "p(new Intl.DateTimeFormat('en-US', { month: 'long' }).format(s), new Intl.DateTimeFormat('en-US', { weekday: 'short' }).format(s), new Intl.DateTimeFormat('en-US', { hour: 'numeric' }).format(s), new Intl.DateTimeFormat().resolvedOptions().timeZone, new Intl.DateTimeFormat().resolvedOptions().locale);\n"
    "p(new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(d).map(x => x.type + ':' + x.value).join(','));\n"
    "p(new Intl.PluralRules('en-US').select(0), new Intl.PluralRules('en-US').select(1), new Intl.PluralRules('en-US').select(2), [1, 2, 3, 4, 11, 21, 22, 23].map(n => new Intl.PluralRules('en-US', { type: 'ordinal' }).select(n)).join(','));\n"
    "const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });\n"
    "p(rtf.format(-1, 'day'), rtf.format(1, 'day'), rtf.format(0, 'day'), rtf.format(-3, 'month'), new Intl.RelativeTimeFormat('en').format(2, 'hours'), new Intl.RelativeTimeFormat('en', { style: 'short' }).format(-5, 'minute'));\n"
    "p(new Intl.ListFormat('en', { style: 'long', type: 'conjunction' }).format(['a', 'b', 'c']), new Intl.ListFormat('en', { type: 'disjunction' }).format(['x', 'y']), new Intl.ListFormat('en', { style: 'narrow', type: 'unit' }).format(['1', '2']));\n"
    "p(['b', 'a', 'B', 'A', 'é', 'e', 'z', 'Z', '10', '9', '_x', ' y'].sort(new Intl.Collator('en').compare).join(','));\n"
    "p(['item10', 'item9', 'Item1', 'item2'].sort(new Intl.Collator('en', { numeric: true }).compare).join(','), ['a', 'A', 'á'].map(x => new Intl.Collator('en', { sensitivity: 'base' }).compare('a', x)).join(','), 'a'.localeCompare('B'), 'résumé'.localeCompare('resume', 'en', { sensitivity: 'base' }));\n"
    "p(['Zoë', 'zebra', 'Apple', 'apple', 'Äpfel', 'banana'].sort((a, b) => a.localeCompare(b)).join(','), new Intl.Collator('en').resolvedOptions().locale, new Intl.Collator('en', { numeric: true }).resolvedOptions().numeric);\n"
    "p(Intl.NumberFormat.supportedLocalesOf(['en-US', 'en']).join(','), typeof Intl.getCanonicalLocales, new Intl.Locale('en-US').language, [1234.5, 6].toLocaleString('en-US'));\n"
    "p(d.toLocaleString('en-US', { weekday: 'long', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' }), d.toLocaleString('en-US', { month: 'long', year: 'numeric', hour: 'numeric' }), d.toLocaleString('en-US', { weekday: 'short', hour: 'numeric', minute: '2-digit' }), d.toLocaleString('en-US', { weekday: 'long', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }), d.toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric' }), new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', hour: 'numeric' }).formatToParts(d).map(x => x.value).join('/'));\n"
    "console.log(out.join('\\n'));\n";
static const char intl_out[] =
    "1,234,567.891 | 1,234,567.891 | 50% | -1,234.5\n"
    "$1,234.50 | -€10.00 | ¥1,235\n"
    "3.14 | 123,000 | 12.3%\n"
    "1.2M | 2.5 thousand | 1.235E5 | 123.456E3\n"
    "50 km/h | 1.5 megabytes | +5 | 2.00 US dollars\n"
    "123,456,789 | minusSign:-,integer:1,group:,,integer:234,decimal:.,fraction:5 | 2\n"
    "1/15/2024 | 1:05:09 PM | 1/15/2024, 1:05:09 PM | 1/15/2024, 1:05:09 PM\n"
    "Monday, January 15, 2024 | Jan 15 | 01/15/24\n"
    "Jan 15, 2024 | 1/15/24, 1:05 PM | 13:05:09\n"
    "Jul 4, 2024, 12:30 PM | 10:00 PM GMT+5:30 | 17:30\n"
    "July | Thu | 4 PM | UTC | en-US\n"
    "month:1,literal:/,day:15,literal:/,year:2024\n"
    "other | one | other | one,two,few,other,other,one,two,few\n"
    "yesterday | tomorrow | today | 3 months ago | in 2 hours | 5 min. ago\n"
    "a, b, and c | x or y | 1 2\n"
    " y,_x,10,9,a,A,b,B,e,é,z,Z\n"
    "Item1,item2,item9,item10 | 0,0,0 | -1 | 0\n"
    "Äpfel,apple,Apple,banana,zebra,Zoë | en | true\n"
    "en-US,en | function | en | 1,234.5,6\n"
    "Monday, January 15 at 1:05 PM | January 2024 at 1 PM | Mon 1:05 PM | Monday, 1:05 PM UTC | Jan 15, 1 PM | "
    "January/ /15/ at /1/ /PM\n";

/* as node prints them (the programs above, run by node 20) */
static void test_buffer(void **s) {
  (void)s;
  expect_js_output(buffer_js, NULL, buffer_out);
}
static void test_text_codecs(void **s) {
  (void)s;
  expect_js_output(text_js, NULL, text_out);
}
static void test_url(void **s) {
  (void)s;
  expect_js_output(url_js, NULL, url_out);
}
static void test_structured_clone(void **s) {
  (void)s;
  expect_js_output(clone_js, NULL, clone_out);
}
static void test_web_crypto(void **s) {
  (void)s;
  expect_js_output(webcrypto_js, NULL, webcrypto_out);
}
static void test_events_and_process(void **s) {
  (void)s;
  expect_js_output(events_js, NULL, events_out);
}
/* node ran it in /app, the sandbox's working directory */
static void test_core_modules(void **s) {
  (void)s;
  expect_js_output(core_js, NULL, core_out);
  /* node: setTimeout and setImmediate promisify to timers/promises' */
  expect_js_output(
      "const { promisify } = require('util');\n"
      "console.log(await promisify(setTimeout)(5, 'late'), await promisify(setImmediate)('soon'));\n",
      NULL, "late soon\n");
}
static void test_crypto_module(void **s) {
  (void)s;
  expect_js_output(cryptomod_js, NULL, cryptomod_out);
}
/* node's Intl for en-US; where the sandbox differs (docs/runtimes.md, JavaScript): a
 * date with a long weekday and month plus a time joins them with a comma
 * where node says "at" */
static void test_intl(void **s) {
  (void)s;
  expect_js_output(intl_js, NULL, intl_out);
  expect_js_output(
      "const d = new Date(Date.UTC(2024, 0, 15, 13, 5, 9));\n"
      "console.log([new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'full', timeStyle: 'long' }).format(d),\n"
      "  new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeStyle: 'short' }).format(d),\n"
      "  d.toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }),\n"
      "  d.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' })].join(' | '));\n"
      "try { new Intl.DateTimeFormat('en-US', { timeZone: 'Mars/Base' }) } catch (e) { console.log(e.name, e.message) }\n"
      "try { d.toLocaleDateString('en-US', { timeStyle: 'short' }) } catch (e) { console.log(e.name) }\n"
      "console.log(new Date(NaN).toLocaleString(), new Intl.DateTimeFormat() instanceof Intl.DateTimeFormat, "
      "Object.prototype.toString.call(new Intl.Collator()));\n",
      NULL,
      "Monday, January 15, 2024 at 1:05:09 PM UTC | January 15, 2024 at 1:05 PM | Jan 15, 1:05 PM | Jan 15, 2024, "
      "1:05:09 PM\n"
      "RangeError Invalid time zone specified: Mars/Base\n"
      "TypeError\n"
      "Invalid Date true [object Intl.Collator]\n");
}
static void test_assert_qs_url(void **s) {
  (void)s;
  expect_js_output(misc_js, NULL, misc_out);
}

static void test_fs(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_js_output(fs_js, dir, fs_out);
  /* the files are the workspace's: what the program left is on the host */
  char *c = read_file(dir, "c.txt");
  assert_non_null(c);
  assert_string_equal(c, "hello world");
  free(c);
  rm_tree(dir);
  free(dir);
}

static void test_streams(void **s) {
  (void)s;
  char *dir = make_dir();
  expect_js_output(streams_js, dir, streams_out);
  char *up = read_file(dir, "up.txt"); /* a pipeline's output is a file of the workspace */
  assert_non_null(up);
  assert_string_equal(up, "A,B\n1,2\n3,4\r\n5,\xc3\x89");
  free(up);
  rm_tree(dir);
  free(dir);
}

/* node ran it with the same packages (NODE_PATH); then what node's own
 * rules say of imports, exports maps, a program's own node_modules and the
 * built-in tree being read-only */
static void test_npm_packages(void **s) {
  (void)s;
  expect_js_output(packages_js, NULL, packages_out);
  expect_js_output(
      "import _ from 'lodash';\n"
      "import { sum } from 'lodash';\n"
      "import dayjs from 'dayjs';\n"
      "import { format } from 'date-fns';\n"
      "import { z } from 'zod';\n"
      "import { parse } from 'csv-parse/sync';\n"
      "import * as yaml from 'js-yaml';\n"
      "console.log(_.sum([1, 2]), sum([3, 4]), dayjs('2024-01-02').format('DD/MM'), "
      "format(new Date(2024, 0, 2), 'MMM d'), z.string().parse('ok'), parse('a\\n1').length, "
      "yaml.load('x: 1').x);\n",
      NULL, "3 7 02/01 Jan 2 ok 2 1\n");
  expect_js_output(
      "try { require('csv-parse/lib/nope') } catch (e) { console.log(e.code, e.message) }\n"
      "try { require('fs').writeFileSync('/usr/lib/node_modules/lodash/x.js', '1') } catch (e) { console.log(e.code) }\n"
      "console.log(require.resolve('lodash'), require.resolve('csv-parse/sync'), require.resolve.paths('x'));\n",
      NULL,
      "ERR_PACKAGE_PATH_NOT_EXPORTED Package subpath './lib/nope' is not defined by \"exports\" in "
      "/usr/lib/node_modules/csv-parse/package.json\n"
      "EROFS\n"
      "/usr/lib/node_modules/lodash/lodash.js /usr/lib/node_modules/csv-parse/dist/cjs/sync.cjs [ '/app/node_modules', "
      "'/node_modules', '/usr/lib/node_modules' ]\n");
  /* a program's own node_modules comes first, as in node */
  char *dir = make_dir(), sub[2048];
  snprintf(sub, sizeof sub, "%s/node_modules", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  snprintf(sub, sizeof sub, "%s/node_modules/lodash", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  write_file(sub, "index.js", "module.exports = 'mine';");
  expect_js_output("console.log(require('lodash'), typeof require('dayjs'))", dir, "mine function\n");
  rm_tree(dir);
  free(dir);
}

/* ES import of core modules, with and without node:, default and named */
static void test_import_core(void **s) {
  (void)s;
  expect_js_output(
      "import fs, { readFileSync, existsSync } from 'node:fs';\n"
      "import path from 'path';\n"
      "import { EventEmitter, once } from 'events';\n"
      "import * as cryptoNS from 'crypto';\n"
      "import { setTimeout as sleep } from 'node:timers/promises';\n"
      "console.log(readFileSync === fs.readFileSync, typeof existsSync, path.join('a', 'b'),\n"
      "  typeof EventEmitter, typeof once, typeof cryptoNS.createHash, cryptoNS.default === (await import('crypto')).default);\n"
      "console.log(await sleep(1, 'slept'));\n"
      "const os = await import('node:os');\n"
      "console.log(os.hostname(), os.default.platform(), os.tmpdir(), os.cpus().length);\n"
      "try { await import('node:bogus') } catch (e) { console.log(e.code, e.message) }\n"
      "try { await import('no-such-package') } catch (e) { console.log(e.message) }\n"
      "const [l1, l2] = await Promise.all([import('lodash'), import('lodash')]);\n"
      "const { chunk } = await import('lodash');\n"
      "console.log(l1 === l2, chunk === l1.default.chunk, Object.keys(require.cache).length);\n",
      NULL,
      "true function a/b function function function true\nslept\nsandbox linux /app 1\n"
      "ERR_UNKNOWN_BUILTIN_MODULE No such built-in module: node:bogus\n"
      "could not load module 'no-such-package': no such file or directory\ntrue true 1\n");
}

/* require() of CommonJS files and JSON in /app, packages in /app/node_modules */
static void test_require_files(void **s) {
  (void)s;
  char *dir = make_dir();
  write_file(dir, "mod.js",
             "#!/usr/bin/env node\nexports.x = 42; exports.file = __filename; exports.dir = __dirname;\n"
             "exports.again = require('./mod.js') === module.exports; exports.loads = (globalThis.loads || 0) + 1;\n"
             "globalThis.loads = exports.loads;\n");
  write_file(dir, "data.json", "{\"k\": [1, 2]}");
  char sub[2048];
  snprintf(sub, sizeof sub, "%s/lib", dir);
  assert_int_equal(mkdir(sub, 0755), 0);
  write_file(sub, "index.js", "module.exports = () => require('../data.json').k.length;");
  snprintf(sub, sizeof sub, "%s/node_modules", dir);
  assert_int_equal(mkdir(sub, 0755), 0);
  snprintf(sub, sizeof sub, "%s/node_modules/pkg", dir);
  assert_int_equal(mkdir(sub, 0755), 0);
  write_file(sub, "package.json", "{\"main\": \"main.js\"}");
  write_file(sub, "main.js", "module.exports = 'pkg ' + require('path').basename(__dirname);");
  write_file(dir, "bad.json", "{nope");
  expect_js_output(
      "const mod = require('./mod');\n"
      "console.log(mod.x, mod.file, mod.dir, mod.again, require('./mod.js') === mod, mod.loads);\n"
      "console.log(require('./data.json'), require('./lib')(), require('pkg'), require.resolve('./lib'));\n"
      "console.log(require.main === module, __dirname, typeof exports, require.resolve('fs'));\n"
      "for (const id of ['./missing', 'left-pad', '/etc/passwd', '../outside.js']) {\n"
      "  try { require(id) } catch (e) { console.log(e.code, e.message.split('\\n')[0]) }\n"
      "}\n"
      "try { require('./bad.json') } catch (e) { console.log(e.name, e.message.startsWith('/app/bad.json: ')) }\n",
      dir,
      "42 /app/mod.js /app true true 1\n"
      "{ k: [ 1, 2 ] } 2 pkg pkg /app/lib/index.js\n"
      "true /app object fs\n"
      "MODULE_NOT_FOUND Cannot find module './missing'\n"
      "MODULE_NOT_FOUND Cannot find module 'left-pad'\n"
      "MODULE_NOT_FOUND Cannot find module '/etc/passwd'\n"
      "MODULE_NOT_FOUND Cannot find module '../outside.js'\n"
      "SyntaxError true\n");
  /* a stateless call starts from the snapshot: no module of the last call is cached */
  expect_js_output("console.log(Object.keys(require.cache).length, require('./mod').loads)", dir, "0 1\n");
  rm_tree(dir);
  free(dir);
}

/* modules that need processes or the network exist to say so */
static void test_unavailable_modules(void **s) {
  (void)s;
  const char *mods[] = {"child_process", "net", "http", "https", "worker_threads", "cluster", "dgram", "dns", "tls"};
  for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
    char code[256];
    snprintf(code, sizeof code, "require('node:%s')", mods[i]);
    wasmbox_result *r = expect_js_error(code, NULL, "Error");
    char want[128];
    snprintf(want, sizeof want, "The module '%s' is not available in the wasmbox sandbox: ", mods[i]);
    if (strncmp(r->error_message, want, strlen(want)) != 0) fail_msg("%s: %s", mods[i], r->error_message);
    wasmbox_result_free(r);
  }
  /* what fs cannot do here says why and what to use instead, with no talk of network or processes */
  wasmbox_result *r = expect_js_error("require('fs').watch('x')", NULL, "Error");
  assert_string_equal(r->error_message,
                      "fs.watch() is not available in the wasmbox sandbox: files do not change while the code runs");
  assert_int_equal(r->guidance_len, 0);
  wasmbox_result_free(r);
}

/* every fs entry point, every way out of /app (absolute, .., a planted
 * symlink, one the program makes, /proc): refused as EACCES, nothing written
 * on the host */
static void test_fs_confined(void **s) {
  (void)s;
  char *base = make_dir(), dir[4200], link[4300];
  snprintf(dir, sizeof dir, "%s/ws", base);
  assert_int_equal(mkdir(dir, 0755), 0);
  write_file(base, "canary", "host");
  snprintf(link, sizeof link, "%s/up", dir);
  assert_int_equal(symlink("..", link), 0);
  expect_js_output(
      "const fs = require('fs');\n"
      "fs.writeFileSync('mine', 'x');\n"
      "const paths = ['/etc/passwd', '../canary', '/app/../canary', 'up/canary', '/proc/self/environ', '/tmp/x'];\n"
      "const calls = {\n"
      "  readFileSync: (p) => fs.readFileSync(p), writeFileSync: (p) => fs.writeFileSync(p, 'x'),\n"
      "  appendFileSync: (p) => fs.appendFileSync(p, 'x'), readdirSync: (p) => fs.readdirSync(p + '/..'),\n"
      "  statSync: (p) => fs.statSync(p), lstatSync: (p) => fs.lstatSync(p), mkdirSync: (p) => fs.mkdirSync(p + '_d', { recursive: true }),\n"
      "  rmSync: (p) => fs.rmSync(p, { recursive: true, force: true }), unlinkSync: (p) => fs.unlinkSync(p),\n"
      "  renameFrom: (p) => fs.renameSync(p, 'stolen'), renameTo: (p) => fs.renameSync('mine', p),\n"
      "  copyFrom: (p) => fs.copyFileSync(p, 'stolen'), copyTo: (p) => fs.copyFileSync('mine', p),\n"
      "  symlinkSync: (p) => fs.readFileSync((fs.symlinkSync(p, 'l'), 'l')),\n"
      "  readlinkSync: (p) => fs.readlinkSync(p), realpathSync: (p) => fs.realpathSync(p),\n"
      "};\n"
      "const codes = new Set(); let refused = 0;\n"
      "for (const p of paths) for (const [name, call] of Object.entries(calls)) {\n"
      "  try { fs.rmSync('l', { force: true }); call(p); console.log('LEAK', name, p) } catch (e) { refused++; codes.add(e.code) }\n"
      "}\n"
      "console.log(refused, [...codes].sort().join(), paths.some((p) => fs.existsSync(p)), fs.readdirSync('.').join());\n",
      dir, "96 EACCES false mine,up\n");
  /* and the streams, whose errors come as events */
  expect_js_output(
      "const fs = require('fs');\n"
      "const paths = ['/etc/passwd', '../canary', '/app/../canary', 'up/canary', '/proc/self/environ', '/tmp/x'];\n"
      "let n = 0; const codes = new Set();\n"
      "const done = (e) => { codes.add(e.code); if (++n === 2 * paths.length) console.log(n, [...codes].join(), fs.readdirSync('.').join()); };\n"
      "for (const p of paths) {\n"
      "  fs.createReadStream(p).on('data', () => console.log('LEAK read', p)).on('error', done);\n"
      "  fs.createWriteStream(p).on('error', done).on('finish', () => console.log('LEAK write', p)).end('x');\n"
      "}\n",
      dir, "12 EACCES mine,up\n");
  char *c = read_file(base, "canary");
  assert_string_equal(c, "host");
  free(c);
  rm_tree(base);
  free(base);
}

/* readline and fs.readFileSync(0) over stdin, as programs for judges read input */
static void test_stdin(void **s) {
  (void)s;
  const char *progs[][2] = {
      {"const rl = require('readline').createInterface({ input: process.stdin });\n"
       "const lines = [];\n"
       "rl.on('line', (l) => lines.push(l)).on('close', () => console.log(lines));\n",
       "[ '1 2', '3 4' ]\n"},
      {"const rl = require('node:readline').createInterface({ input: process.stdin });\n"
       "let n = 0; for await (const line of rl) n += line.split(' ').map(Number).reduce((a, b) => a + b);\n"
       "console.log(n);\n",
       "10\n"},
      {"process.stdout.write('read ' + require('fs').readFileSync(0, 'utf8').length + '\\n');", "read 8\n"},
  };
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
    wasmbox_request req = {.language = "javascript", .code = progs[i][0], .stdin_data = "1 2\n3 4\n", .stdin_len = 8};
    wasmbox_result *r = run_req(&req);
    expect_status(r, WASMBOX_STATUS_OK);
    if (strcmp(r->stdout_data, progs[i][1]) != 0) dump(r);
    assert_string_equal(r->stdout_data, progs[i][1]);
    wasmbox_result_free(r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_buffer),
      cmocka_unit_test(test_text_codecs),
      cmocka_unit_test(test_url),
      cmocka_unit_test(test_structured_clone),
      cmocka_unit_test(test_web_crypto),
      cmocka_unit_test(test_events_and_process),
      cmocka_unit_test(test_core_modules),
      cmocka_unit_test(test_crypto_module),
      cmocka_unit_test(test_assert_qs_url),
      cmocka_unit_test(test_intl),
      cmocka_unit_test(test_fs),
      cmocka_unit_test(test_streams),
      cmocka_unit_test(test_npm_packages),
      cmocka_unit_test(test_import_core),
      cmocka_unit_test(test_require_files),
      cmocka_unit_test(test_unavailable_modules),
      cmocka_unit_test(test_fs_confined),
      cmocka_unit_test(test_stdin),
  };
  return RUN("js_node", tests);
}
