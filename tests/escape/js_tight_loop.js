// escape: a loop with no calls in it
// option timeout 0.5
// expect status timeout
for (;;) {}
