# escape: threads (an unbounded number would exhaust the host)
# expect status ok
# expect stdout_is blocked\n
import threading
try:
    for i in range(1000):
        threading.Thread(target=lambda: None).start()
    print('LEAK')
except RuntimeError:
    print('blocked')
