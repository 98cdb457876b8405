// escape: fill the disk through /app
// option quota 3
// expect status ok
// expect stdout_is stopped\n
const block = 'z'.repeat(1 << 20);
try {
  for (let i = 0; i < 1000; i++) writeText('/app/f' + i, block);
  console.log('LEAK');
} catch (e) {
  console.log('stopped');
}
