// escape: write outside /app
// expect status ok
// expect stdout_is blocked\nblocked\nblocked\n
for (const p of ['/tmp/x', '/app/../x', '/usr/lib/evil.js']) {
  try {
    writeText(p, 'x');
    console.log('LEAK', p);
  } catch (e) {
    console.log('blocked');
  }
}
