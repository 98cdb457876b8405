// Strings: concatenation, templates, join, split and slicing.
function bench() {
  let s = '';
  for (let i = 0; i < 200000; i++) s += i % 10;
  const rows = [];
  for (let i = 0; i < 50000; i++) rows.push(`${i},${(i * 7) % 13},name${i % 100}`);
  const csv = rows.join('\n');
  let total = 0;
  for (const line of csv.split('\n')) {
    const [a, b, c] = line.split(',');
    total += Number(a) + Number(b) + c.length;
  }
  let upper = '';
  for (let i = 0; i < 20000; i++) upper += csv.slice(i * 3, i * 3 + 3).toUpperCase();
  return `${s.length} ${total} ${upper.length}`;
}
