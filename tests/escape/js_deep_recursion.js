// escape: unbounded recursion
// expect status ok
// expect stdout_has caught
function f(n) { return f(n + 1) + 1; }
try { f(0); } catch (e) { console.log('caught', e.name); }
