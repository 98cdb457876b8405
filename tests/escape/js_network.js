// escape: fetch, XMLHttpRequest, WebSocket
// expect status ok
// expect stdout_is blocked\nblocked\nblocked\n
for (const op of [() => fetch('http://example.com'), () => new XMLHttpRequest(), () => new WebSocket('ws://x')]) {
  try {
    op();
    console.log('LEAK');
  } catch (e) {
    console.log('blocked');
  }
}
