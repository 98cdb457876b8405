# escape: reach os.system and posix through import machinery
# expect status ok
# expect stdout_is blocked\nblocked\nblocked\n
import importlib
for op in (lambda: __import__('os').system('id'), lambda: importlib.import_module('posix').system('id'),
           lambda: __builtins__.__import__('subprocess').Popen(['id'])):
    try:
        r = op()
        print('LEAK', r)
    except (AttributeError, OSError, ImportError):
        print('blocked')
