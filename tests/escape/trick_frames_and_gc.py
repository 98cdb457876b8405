# escape: look for host objects through frames, gc and object subclasses
# expect status ok
# expect stdout_has seen
import gc, sys
f = sys._getframe()
depth = 0
while f.f_back:
    f = f.f_back
    depth += 1
names = set()
for o in gc.get_objects():
    t = type(o).__name__
    names.add(t)
subs = [c.__name__ for c in object.__subclasses__()]
bad = [s for s in subs if s in ('Popen', 'socket', 'CDLL')]
print('seen', depth, len(names) > 10, bad)
