// escape: the host environment
// expect status ok
// expect stdout_is none\n
let env = null;
try { env = typeof std !== 'undefined' ? std.getenviron() : null; } catch (e) {}
console.log(env ? 'LEAK ' + JSON.stringify(env) : 'none');
