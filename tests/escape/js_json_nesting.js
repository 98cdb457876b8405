// escape: JSON nested beyond any stack
// expect status ok
// expect stdout_has caught
try { JSON.parse('['.repeat(1000000)); } catch (e) { console.log('caught', e.name); }
