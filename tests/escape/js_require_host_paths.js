// escape: require() and import() of host paths outside /app
// expect status ok
// expect stdout_is MODULE_NOT_FOUND\nMODULE_NOT_FOUND\nMODULE_NOT_FOUND\nMODULE_NOT_FOUND\nMODULE_NOT_FOUND\nblocked\nblocked\n
for (const id of ['/etc/passwd', '../canary', '/app/../canary', '/proc/self/environ', '/usr/lib/node_modules/npm']) {
  try { console.log('LEAK', require(id)); } catch (e) { console.log(e.code); }
}
for (const id of ['/etc/hostname', '../canary']) {
  try { console.log('LEAK', await import(id)); } catch (e) { console.log('blocked'); }
}
