#!/usr/bin/env python3
"""Writes the harnesses' seed corpora (tests/fuzz/corpus/NAME/): a few
well-formed inputs each, from which libFuzzer mutates. Run it again after a
change of the wire format or the MCP methods; findings are added by hand."""
import json
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def u8(v): return struct.pack("<B", v)
def u32(v): return struct.pack("<I", v)
def u64(v): return struct.pack("<Q", v)
def f64(v): return struct.pack("<d", v)


def byts(b):
    return u8(0) if b is None else u8(1) + u64(len(b)) + b + b"\0"


def s(t): return byts(None if t is None else t.encode())


def write(name, seeds):
    d = os.path.join(here, "corpus", name)
    os.makedirs(d, exist_ok=True)
    for i, data in enumerate(seeds):
        with open(os.path.join(d, "seed-%02d" % i), "wb") as f:
            f.write(data)


def result(status=0, out=b"hi\n", session=None, files=("/app/a",), guidance=("hint",)):
    r = u32(status) + u32(0) + byts(out) + byts(b"") + u8(0) + u8(0) + u64(len(out)) + u64(0)
    r += s("ValueError") + s("bad") + s("Traceback ...")
    r += u32(len(guidance)) + b"".join(s(g) for g in guidance)
    r += f64(1.25) + u64(1000) + u64(1 << 20) + s(session) + u8(0)
    return r + u32(len(files)) + b"".join(s(x) for x in files) + byts(None) + u8(0)


def request(code=b"print(1)", env=("A=1",), mounts=(("/srv", "/data"),), session=None):
    r = s("python") + byts(code) + s(None) + s(None) + f64(5) + u64(0) + u64(0) + u64(0) + u64(0) + byts(None)
    r += u32(len(env)) + b"".join(s(e) for e in env)
    r += u32(len(mounts)) + b"".join(s(h) + s(g) for h, g in mounts)
    return r + s(session) + u8(0) + u8(0) + byts(None)


setup = s("/home/u/.local/share/wasmbox") + s("/tmp/wasmbox-x") + u32(2) + s("/srv/ws") + u8(1) + u8(0) + \
    s("/srv/ws/meta") + u8(0) + u8(1) + u64(16 << 30) + u32(256)
ready = b"".join(u8(i % 2) + s("layer %d" % i) for i in range(14))
write("fuzz_worker_protocol", [
    u8(0) + result(), u8(0) + result(status=2, out=b"", session="s1", files=(), guidance=()),
    u8(1) + request(), u8(1) + request(code=b"", env=(), mounts=(), session="s1"),
    u8(2) + setup, u8(3) + ready, u8(4) + u32(2) + s("bad usage"),
])

rpc = lambda i, m, p=None: json.dumps({"jsonrpc": "2.0", "id": i, "method": m, **({"params": p} if p else {})})
note = lambda m, p=None: json.dumps({"jsonrpc": "2.0", "method": m, **({"params": p} if p else {})})
init = rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "fuzz", "version": "1"}})
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
call = lambda i, name, args: rpc(i, "tools/call", {"name": name, "arguments": args})
write("fuzz_mcp_message", [(bytes([mode]) + "\n".join(lines).encode()) for mode, lines in [
    (0, [init, note("notifications/initialized"), rpc(2, "tools/list"), rpc(3, "ping")]),
    (0, [init, note("notifications/initialized"), call(2, "execute_code", {"code": "print(6*7)"})]),
    (0, [init, call(2, "execute_code", {"code": "console.log(1)", "language": "javascript"}),
         note("notifications/cancelled", {"requestId": 2})]),
    (0, [init, call(2, "create_session", {}), call(3, "list_sessions", {}), rpc(4, "resources/list"),
         rpc(5, "prompts/list"), rpc(6, "logging/setLevel", {"level": "debug"})]),
    (1, [rpc(1, "tools/list")]),
    (2, [rpc(1, "tools/list", {"_meta": meta}), rpc(2, "server/discover", {"_meta": meta}),
         call(3, "list_runtimes", {"_meta": meta})]),
    (0, ['{"jsonrpc":"2.0","id":1', "[1,2]", '{"jsonrpc":"2.0","id":{},"method":"x"}', '"\\ud800"']),
]])

write("fuzz_config", [
    b"\x01" + json.dumps({"timeout": 5, "max-timeout": 50, "memory": 64, "external-files": ["/etc/hostname"],
                          "log-level": "info", "allow-imports": ["json"]}).encode(),
    b"\x03" + json.dumps({"listen": "127.0.0.1:0", "token": "0123456789abcdef0123", "allow-origin": ["x"],
                          "max-connections": 10}).encode(),
    b"\x00" + b"\0".join([b"--timeout", b"2.5", b"--memory=64", b"--workers", b"3", b"--deny-builtins", b"eval"]),
    b"\x02" + b"\0".join([b"--listen", b"127.0.0.1:0", b"--idle-timeout", b"1", b"--allow-origin", b"a"]),
])

# fuzz_session_store: byte 0 picks the file (HEAD, meta, log) and how it is
# damaged (replaced, cut, patched), bytes 1-2 where, the rest what is written
write("fuzz_session_store", [bytes([f + 3 * m, 0x80, 0x00]) + b"WBHEAD\0\1" + b"\xff" * 8
                             for m in range(3) for f in range(3)])

ok_call = b'{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1}}'
listing = b'[{"name":"a__x","description":"d"},{"name":"a__no"},{"name":"c__y"},{"x":1}]'
write("fuzz_tool_request", [
    b'{"op":"call","name":"a__x","arguments":{"k":[1,2,{"z":null}]}}\0' + ok_call,
    b'{"op":"call","name":"a__nope","arguments":{}}\0' + ok_call,
    b'{"op":"list"}\0' + listing,
    b'{"op":"search","query":"x","limit":2}\0' + listing,
    b'{"op":"schema","name":"b__x"}\0{"name":"b__x","inputSchema":{"type":"object"}}',
    b'{"op":"call","name":"b__x"}\0Eupstream down',
    b'{"op":"call","name":"a__x"}\0ENnot on this server',
    b'{"op":"call","name":"a__x"}\0not json',
    b'{"op":"call","name":"a__x","arguments":{}}\0EAneeds approval',
])
