// Objects: build, read and mutate records, then JSON round trips.
function bench() {
  let doc = { users: [] };
  for (let i = 0; i < 2000; i++) {
    doc.users.push({ id: i, name: `user${i}`, tags: ['a', 'b', 'c'], score: i * 1.5, active: i % 2 === 0,
                     meta: { x: null, y: [1, 2, 3] } });
  }
  let text = '';
  for (let k = 0; k < 10; k++) {
    text = JSON.stringify(doc);
    doc = JSON.parse(text);
    for (const u of doc.users) u.score += u.meta.y[k % 3];
  }
  const byTag = {};
  for (const u of doc.users) for (const t of u.tags) byTag[t] = (byTag[t] || 0) + u.score;
  return `${text.length} ${Math.round(byTag.a)}`;
}
