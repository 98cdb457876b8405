#!/usr/bin/env python3
"""Writes the harnesses' seed corpora (tests/fuzz/corpus/NAME/): a few
well-formed inputs each, from which libFuzzer mutates. Run it again after a
change of the wire format or the MCP methods; findings are added by hand.
  make_seeds.py [BUILD]   (BUILD: where build/fuzz/ is, for the harnesses
                           that write their own seeds; default build)"""
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


def result(status=0, out=b"hi\n", session=None, files=("/app/a",), guidance=(("hint", "timeout"),)):
    r = u32(status) + u32(0) + byts(out) + byts(b"") + u8(0) + u8(0) + u64(len(out)) + u64(0)
    r += s("ValueError") + s("bad") + s("Traceback ...")
    r += u32(len(guidance)) + b"".join(s(g) + s(kind) for g, kind in guidance)
    r += f64(1.25) + u64(1000) + u64(1 << 20) + s(session) + u8(0)
    return r + u32(len(files)) + b"".join(s(x) for x in files) + byts(None) + u8(0)


def request(code=b"print(1)", env=("A=1",), mounts=(("/srv", "/data"),), session=None):
    r = s("python") + byts(code) + s(None) + s(None) + f64(5) + u64(0) + u64(0) + u64(0) + u64(0) + byts(None)
    r += u32(len(env)) + b"".join(s(e) for e in env)
    r += u32(len(mounts)) + b"".join(s(h) + s(g) for h, g in mounts)
    return r + s(session) + u8(0) + u8(0) + byts(None)


setup = s("/home/u/.local/share/wasmbox") + s("/tmp/wasmbox-x") + u8(1) + u32(2) + s("/srv/ws") + u8(1) + u8(0) + \
    s("/srv/ws/meta") + u8(0) + u8(1) + u64(16 << 30) + u32(256)
ready = b"".join(u8(i % 2) + s("layer %d" % i) for i in range(14))
write("fuzz_worker_protocol", [
    u8(0) + result(), u8(0) + result(status=2, out=b"", session="s1", files=(), guidance=()),
    u8(0) + result(guidance=(("a", "no_network"), ("b", "not_a_kind"))),
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


def post(body, headers=(), path="/mcp", host="127.0.0.1", method="POST"):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: %s" % host] + list(headers)
    if method == "POST":
        lines += ["Content-Type: application/json", "Accept: application/json, text/event-stream",
                  "Content-Length: %d" % len(body)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body.encode()


# fuzz_http: byte 0 bit 0 fixes Content-Length, bit 1 sends in small writes,
# bit 2 picks the server with --tokens, --session-key and --access-log
auth = "Authorization: Bearer fuzz-token-0123456789"
stateless = ["MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: execute_code"]
write("fuzz_http", [
    b"\x01" + post(init),
    b"\x03" + post(rpc(2, "tools/list")),
    b"\x01" + post(call(3, "execute_code", {"code": "print(6*7)", "_meta": meta}), stateless),
    b"\x01" + post(init) + post(note("notifications/initialized"), ["Mcp-Session-Id: nosuch"]),
    b"\x00" + post("", ["Mcp-Session-Id: nosuch"], method="DELETE"),
    b"\x00" + post("", method="GET"),
    b"\x01" + post(init, ["Origin: http://evil.example"]),
    b"\x01" + post(init, host="evil.example"),
    b"\x00" + b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n3\r\n 1}\r\n0\r\n\r\n",
    b"\x00" + b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              b"Content-Length: 99999999\r\n\r\n{}",
    b"\x01" + post("[" + init + "]"),
    b"\x00" + post("", method="GET", path="/"),
    b"\x00" + post("", method="GET", path="/playground/app.js"),
    b"\x00" + post("", method="HEAD", path="/healthz"),
    b"\x00" + post("", ["Authorization: Bearer x"], method="GET", path="/metrics"),
    b"\x01" + post("{}", path="/healthz"),
    # bit 2: the server with clients, signed session ids and an access log
    b"\x05" + post(init, [auth]),
    b"\x05" + post(rpc(2, "tools/list"), [auth, "Mcp-Session-Id: " + "0" * 32 + "20251125" + "0" * 16]),
    b"\x05" + post(call(3, "execute_code", {"code": "print(6*7)", "_meta": meta}), stateless + [auth]),
    b"\x04" + post("", [auth], method="GET", path="/metrics"),
    b"\x05" + post(init, ["Authorization: Bearer wrong-token-0123456789"]),
    b"\x04" + post("", [auth, "Mcp-Session-Id: " + "0" * 56], method="DELETE"),
])


# fuzz_wasi: byte 0 is fd_base; then steps: an op byte, six 32-bit and two
# 64-bit arguments (two bytes each below 0xfff0; 0xffff escapes to full
# width), op 0 (memory) a length and bytes, ops 31 and 32 one more argument
def a16(v):
    return struct.pack("<H", v) if v < 0xfff0 else struct.pack("<HHH", 0xffff, v & 0xffff, v >> 16)


def a64(v):
    return struct.pack("<H", v) if v < 0xfff0 else b"\xff\xff" + a16(v >> 32) + struct.pack("<HH", v & 0xffff, (v >> 16) & 0xffff)


def op(n, *args, x=0, y=0, extra=None, mem=b""):
    args = list(args) + [0] * (6 - len(args))
    r = bytes([n]) + b"".join(a16(v) for v in args) + a64(x) + a64(y)
    if n == 0:
        r += bytes([len(mem)]) + mem
    if extra is not None:
        r += struct.pack("<H", extra)
    return r


ALL = (1 << 30) - 1
APP, DATA, IMG, FIRST = 3, 4, 5, 6  # preopens; the first opened file (fd_base 0)
name = lambda i: 0x100 + 0x20 * i  # seed_memory()'s strings
opn = lambda d, i, ln, oflags=0, fdflags=0: op(32, d, 1, name(i), ln, oflags, fdflags, x=ALL, y=ALL, extra=0x600)
sub_clock = struct.pack("<QB7xI4xQQH6x", 7, 0, 1, 5_000_000, 0, 0)
write("fuzz_wasi", [b"\x00" + b"".join(p) for p in [
    [opn(APP, 0, 5), op(21, FIRST, 0x400, 2, 0x610), op(27, 1, 0x400, 1, 0x610), op(9, FIRST)],
    [opn(APP, 7, 3, oflags=1), op(27, FIRST, 0x400, 2, 0x610), op(24, FIRST, 2, 0x618), op(26, FIRST, 0x618),
     op(15, FIRST, x=3), op(14, FIRST, 0x700), op(16, FIRST, 3, x=1, y=2), op(9, FIRST)],
    [opn(APP, 3, 15), opn(APP, 4, 3), opn(APP, 8, 24), opn(APP, 5, 11), op(33, APP, name(4), 3, 0x1000, 256, 0x610)],
    [op(35, APP, name(0), 5, APP, name(7), 3), op(36, name(3), 15, APP, name(7), 3),
     op(31, DATA, 0, name(9), 8, APP, name(7), extra=3), op(37, APP, name(1), 9), op(34, APP, name(6), 3),
     op(28, APP, name(7), 3), op(29, APP, 0, name(2), 2, 0x700)],
    [op(22, APP, 0x1000, 1024, 0x610), op(22, IMG, 0x1000, 4096, 0x610), op(32, IMG, 1, name(10), 5, 0, 0,
                                                                            x=ALL, y=ALL, extra=0x600),
     op(21, FIRST, 0x400, 2, 0x610), op(18, IMG, 0x1000, 16), op(19, IMG, 0x700), op(23, FIRST, 20)],
    [op(0, 0x2000, mem=sub_clock), op(38, 0x2000, 0x3000, 1, 0x610), op(39, 0x1000, 64), op(4, 0, 0x700, x=1),
     op(3, 1, 0x700), op(1, 0x700, 0x800), op(2, 0x700, 0x704), op(5, 0x700, 0x800), op(6, 0x700, 0x704), op(40)],
    [op(11, 0, 0x700), op(12, 1, 1), op(13, APP, x=0, y=0), op(7, 0, x=0, y=10, ), op(8, APP, x=0, y=10),
     op(10, APP), op(25, 1), op(17, DATA, 0x400, 1, 0x610), op(20, 1, 0x400, 1, 0x610), op(41, 0, 0, 0x700),
     op(42, 0, 0x400, 1, 0, 0x610, 0x614), op(43, 0, 0x400, 1, 0, 0x610)],
]])


# fuzz_wasm_fuel: any bytes; wasm-opt --translate-to-fuzz makes them a module
# (more bytes, more functions)
import random
write("fuzz_wasm_fuel", [bytes(random.Random(i).getrandbits(8) for _ in range(300 + 900 * i)) for i in range(5)])

# fuzz_oauth: 0 a token as is, 1 a JWKS, 2 a header and claims the harness
# signs (second byte: 0 RSA key "r", 1 EC key "e"), 3 a reason to quote
b64u = lambda b: __import__("base64").urlsafe_b64encode(b).rstrip(b"=")
claims = {"iss": "https://issuer.example", "aud": "https://mcp.example/mcp", "sub": "alice", "exp": 2e9,
          "nbf": 1.7e9, "scope": "openid mcp"}
hdr = lambda alg, kid: json.dumps({"alg": alg, "typ": "JWT", "kid": kid}).encode()
jot = lambda h, c, sig=b"c2ln": b64u(h) + b"." + b64u(json.dumps(c).encode()) + b"." + sig
write("fuzz_oauth", [
    b"\0" + jot(hdr("RS256", "r"), claims), b"\0" + jot(hdr("none", None), claims, b""),
    b"\0" + jot(hdr("HS256", "r"), claims), b"\0" + jot(hdr("ES256", "e"), claims, b"A" * 86), b"\0a.b.c",
    b"\1" + json.dumps({"keys": [{"kty": "RSA", "kid": "r", "n": "AQAB" * 64, "e": "AQAB"},
                                 {"kty": "EC", "crv": "P-256", "x": "A" * 43, "y": "A" * 43},
                                 {"kty": "oct", "k": "c2VjcmV0"}]}).encode(),
    b"\2\0" + hdr("RS256", "r") + b"\0" + json.dumps(claims).encode(),
    b"\2\1" + hdr("ES256", "e") + b"\0" + json.dumps(dict(claims, aud=["x", claims["aud"]], scp=["mcp"])).encode(),
    b"\2\0" + hdr("RS256", None) + b"\0" + json.dumps(dict(claims, exp=1.6e9)).encode(),
    b"\2\1" + json.dumps({"alg": "ES256", "crit": ["b64"]}).encode() + b"\0" + json.dumps(claims).encode(),
    b"\3" + b'it said "no" \\ \n and \x01 more',
])

# fuzz_store_rows and fuzz_paused_file: seeds made by the real writers (a
# meta through wb_meta_to_store, a marker through wb_marker_format, paused
# runs through the library): each harness writes its own when WB_FUZZ_SEEDS
# names a directory (build them first: make build/fuzz/NAME)
import subprocess
import sys
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "build")
env = dict(os.environ, ASAN_OPTIONS="handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:use_sigaltstack=0")
for name in ("fuzz_store_rows", "fuzz_paused_file"):
    exe = os.path.join(build, "fuzz", name)
    if not os.path.exists(exe):
        print("make_seeds.py: %s is not built: its seeds are left as they are" % exe, file=sys.stderr)
        continue
    d = os.path.join(here, "corpus", name)
    os.makedirs(d, exist_ok=True)
    subprocess.run([exe], env=dict(env, WB_FUZZ_SEEDS=d), check=True)
