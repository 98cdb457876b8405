// escape: allocate until the host runs out
// option memory 64
// expect status out_of_memory
const keep = [];
for (;;) keep.push(new Array(1 << 20).fill(1.5));
