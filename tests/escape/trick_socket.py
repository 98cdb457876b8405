# escape: reach the network
# expect status ok
# expect stdout_is blocked\nblocked\nblocked\n
import socket, urllib.request
for op in (lambda: socket.create_connection(('1.1.1.1', 80), timeout=1),
           lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('8.8.8.8', 53)),
           lambda: urllib.request.urlopen('http://example.com', timeout=1)):
    try:
        op()
        print('LEAK')
    except Exception:
        print('blocked')
