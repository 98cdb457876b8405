// escape: list the host's root
// expect status ok
// expect stdout_lacks LEAK
let seen;
try { seen = listDir('/'); } catch (e) { seen = []; }
const host = seen.filter((n) => ['etc', 'root', 'home', 'proc', 'work'].includes(n));
console.log(host.length ? 'LEAK ' + host : 'nothing');
