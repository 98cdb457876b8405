// escape: the node vm trick (constructor of a constructor) and host handles
// expect status ok
// expect stdout_is blocked\nblocked\n
const p = (function () {}).constructor.constructor('return typeof process === "undefined" ? undefined : process')();
console.log(p && (p.binding || p.dlopen || p.mainModule || p.kill) ? 'LEAK' : 'blocked');
try {
  globalThis.os.exec(['id']);
  console.log('LEAK');
} catch (e) {
  console.log('blocked');
}
