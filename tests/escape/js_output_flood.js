// escape: flood the output
// option max_output 1000
// expect status ok
// expect stdout_truncated
const s = 'x'.repeat(1 << 20);
for (let i = 0; i < 100; i++) console.log(s);
