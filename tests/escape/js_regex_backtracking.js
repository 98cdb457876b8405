// escape: catastrophic regex backtracking, stopped by the timeout
// option timeout 1
// expect status timeout
/(a+)+$/.test('a'.repeat(64) + 'b');
