// escape: Object.prototype and built-in prototypes tampered with before require(),
// hoping the module loader hands its `native` functions to guest code
// expect status ok
// expect stdout_is loaded 42 2\nnative never seen\nprocess clean\n
const seen = [];
const spy = (v) => { if (v !== null && (typeof v === 'object' || typeof v === 'function')) seen[seen.length] = v; };
for (const name of ['native', 'hooks', 'builtin', 'readFile', 'readBytes', 'evalScript', 'stat', 'fs', 'cache',
  'exports', 'filename', 'main', 'default', 'path', 'then', 'utf8Decode', 'write']) {
  Object.defineProperty(Object.prototype, name, { get() { spy(this); return undefined; }, set(v) { spy(this); spy(v); }, configurable: true });
}
for (const [proto, names] of [[Array.prototype, ['push', 'slice', 'map', 'filter', 'join', 'pop']],
  [Map.prototype, ['get', 'has', 'set']], [Function.prototype, ['call', 'apply', 'bind']],
  [String.prototype, ['startsWith', 'endsWith', 'slice', 'split']], [Promise.prototype, ['then']]]) {
  for (const n of names) {
    const orig = proto[n];
    proto[n] = function (...args) { spy(this); for (const a of args) spy(a); return Reflect.apply(orig, this, args); };
  }
}
writeText('lib.js', 'module.exports = { x: 42 }; exports.y = 1;');
writeText('data.json', '[1, 2]');
const fs = require('fs'), lib = require('./lib.js'), data = require('./data.json');
fs.readFileSync('lib.js'); fs.statSync('lib.js'); require('node:path').join('a', 'b'); require('crypto').createHash('sha1').update('x').digest('hex');
try { require('./nope') } catch { /* expected */ }
const again = await import('node:fs');
console.log('loaded', lib.x, data.length);
const isNative = (v) => { try { return typeof Object.getOwnPropertyDescriptor(v, 'evalScript') === 'object' || typeof Object.getOwnPropertyDescriptor(v, 'readBytes') === 'object' || typeof Object.getOwnPropertyDescriptor(v, 'hooks') === 'object'; } catch { return false; } };
console.log(seen.some(isNative) || isNative(again) ? 'LEAK native' : 'native never seen');
console.log(['binding', 'dlopen', '_linkedBinding', 'kill', 'execve', 'mainModule'].some((k) => Object.getOwnPropertyDescriptor(process, k)) ? 'LEAK' : 'process clean');
