// Regular expressions over a 1 MB text: global matches, groups, replace.
function bench() {
  const parts = [];
  for (let i = 0; i < 20000; i++) {
    parts.push(`user${i}@example${i % 7}.com, 2024-${String(i % 12 + 1).padStart(2, '0')}-` +
               `${String(i % 28 + 1).padStart(2, '0')}, id=${i * 37};`);
  }
  const text = parts.join(' ');
  const emails = text.match(/[\w.]+@[\w.]+\.com/g);
  const dates = [...text.matchAll(/(\d{4})-(\d\d)-(\d\d)/g)];
  let ids = 0;
  for (const m of text.matchAll(/id=(\d+)/g)) ids += Number(m[1]);
  const masked = text.replace(/\d/g, '#');
  return `${emails.length} ${dates.length} ${ids} ${masked.length}`;
}
