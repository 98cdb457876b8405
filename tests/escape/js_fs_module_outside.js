// escape: every entry point of node's fs module at host paths (.., absolute, /proc)
// expect status ok
// expect stdout_is 84 blocked, 0 leaked, exists false\ncanary untouched\n
const fs = require('fs');
const paths = ['/etc/passwd', '../canary', '/app/../canary', '/proc/self/environ', '/proc/1/root/etc/hostname',
  '/tmp/x', './../canary'];
const calls = [
  (p) => fs.readFileSync(p, 'utf8'), (p) => fs.writeFileSync(p, 'pwned'), (p) => fs.appendFileSync(p, 'pwned'),
  (p) => fs.readdirSync(p), (p) => fs.statSync(p), (p) => fs.lstatSync(p), (p) => fs.mkdirSync(p + '_d'),
  (p) => fs.rmSync(p, { recursive: true }), (p) => fs.unlinkSync(p), (p) => fs.renameSync(p, 'stolen'),
  (p) => fs.copyFileSync(p, 'stolen'), (p) => fs.renameSync('mine', p),
];
fs.writeFileSync('mine', 'x');
let blocked = 0, leaked = 0;
for (const p of paths) {
  for (const call of calls) {
    try { call(p); leaked++; console.log('LEAK', p, call.toString()); } catch (e) { blocked++; }
  }
}
const exists = paths.some((p) => fs.existsSync(p));
console.log(`${blocked} blocked, ${leaked} leaked, exists ${exists}`);
(async () => {
  for (const p of paths) {
    try { await fs.promises.readFile(p); console.log('LEAK', p); } catch { /* blocked */ }
    try { await fs.promises.writeFile(p, 'x'); console.log('LEAK', p); } catch { /* blocked */ }
  }
  console.log('canary untouched');
})();
