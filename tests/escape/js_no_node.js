// escape: node's process, require and child_process
// expect status ok
// expect stdout_is env {}\nblocked\nblocked\n
// the sandbox's own `process` shows only the call's environment (none here)
console.log('env', JSON.stringify(typeof process === 'undefined' ? {} : process.env));
for (const op of [() => require('child_process'), () => globalThis.std.popen('id', 'r')]) {
  try {
    console.log('LEAK', op());
  } catch (e) {
    console.log('blocked');
  }
}
