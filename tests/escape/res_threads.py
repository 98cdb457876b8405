# escape: threads (an unbounded number would exhaust the host). WebAssembly
# has none: each Thread.start() runs its thread to the end in the guest's
# one thread of execution (runtimes/python/patches/threads-run-to-completion
# .patch), so a thousand of them are a thousand calls, and none is alive
# after its start()
# expect status ok
# expect stdout_is one after another\n
import threading
done = []
for i in range(1000):
    t = threading.Thread(target=done.append, args=(i,))
    t.start()
    if t.is_alive() or done[-1] != i or threading.active_count() != 1:
        print('LEAK')
        break
else:
    print('one after another')
