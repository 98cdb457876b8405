// escape: quickjs-libc's os and std modules
// expect status error
import * as os from 'os';
console.log('LEAK', os.exec(['id']));
