// escape: symlinks made with fs.symlinkSync pointing out of /app, then followed
// expect status ok
// expect stdout_is made 4\nblocked\nblocked\nblocked\nblocked\nblocked\nblocked\nblocked\nblocked\n
const fs = require('fs');
let made = 0;
for (const [target, name] of [['/etc/passwd', 'l1'], ['../canary', 'l2'], ['/', 'l3'], ['/proc/self/cwd', 'l4']]) {
  fs.symlinkSync(target, name);
  made++;
}
console.log('made', made);
for (const op of [() => fs.readFileSync('l1', 'utf8'), () => fs.readFileSync('l2', 'utf8'), () => fs.writeFileSync('l2', 'pwned'),
  () => fs.readdirSync('l3'), () => fs.readFileSync('l3/etc/passwd'), () => fs.readdirSync('l4'), () => fs.statSync('l1'),
  () => require('./l2')]) {
  try { console.log('LEAK', String(op()).slice(0, 40)); } catch (e) { console.log('blocked'); }
}
